//! The figures of a report, each declared once (the `figures!` macro) with its key, unit and meaning.
//!
//! A figure set (`SteadyFigures<V>`, `IncidentFigures<V>`) is filled with plain values by the
//! analytic engine (`V = f64`) and with estimates by the Monte Carlo engine (`V = MeanCi`: mean
//! and 95% interval). Everything that lists figures walks the declaration: the JSON keys
//! (`KEY`, and `KEY_ci95` for an estimate: the [`Serialize`] impl), the CSV columns and cells
//! ([`FigureEntry`], via `visit`), the finite-number check (`Report::first_non_finite`) and the
//! blending of traffic-share rows (`combine`, generic over the value type).
//!
//! The declaration also says how the compare tables show a figure ([`Show`]: its column, cell
//! format and Monte Carlo column) and how the agreement check holds the engines to each other
//! ([`Agree`]); `output::layout` and `sim::agree` walk it.
//!
//! The JSON integer rule follows it too ([`Figure::count`]), and `sim::agree` walks the
//! steady policy set as it walks the steady and incident ones.
//!
//! The simulators accumulate the same sets: a set of accumulators (`SteadyFigures<Sum>`,
//! `IncidentFigures<Sum>`; [`Accumulate`], [`Merge`]) takes each simulated request's (or
//! window's) bill, a set of plain values, with the generated `add`, `add_many` and `merge`,
//! and `map` turns one set into another (a chunk's running sums into `Sum`s). The sweep's rows
//! carry the analytic sets too (`crate::sweep::columns`).
//!
//! Adding a steady or incident figure: its line here, with the next CSV generation
//! (`csv(N)`, [`Figure::csv`]: its columns go after every existing column of every CSV), and
//! one value per engine: the analytic steady engine's
//! `PolicyOutcome::summary` (`model::policy`) or incident outcome's `figures()`
//! (`model::incident`), and each simulator's bill (`sim::steady::fast`'s `Sample::bill`,
//! `sim::steady::policy`'s `ReqOut::bill`, `sim::incident::fast`'s `Run::bill`, which the event
//! simulator fills too). JSON, CSV, the tables, the blends, the sweep and the agreement check
//! follow the declaration. The schemas' strict rows are then brought up to date by
//! `UPDATE_SCHEMAS=1 cargo test --test it schemas::` (`tests/it/schemas.rs`).

use serde::Serialize;
use serde::ser::SerializeMap;

/// A 95% confidence interval `[lo, hi]`, in the unit of its figure.
pub type Ci = [f64; 2];

/// One figure's declaration: how it is named and what it means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// Its key in JSON and CSV (`cost_per_1k_usd`); an estimate adds `KEY_ci95`.
    pub key: &'static str,
    /// Its unit (`USD per 1,000 requests`).
    pub unit: &'static str,
    /// What it means (the field's doc comment).
    pub meaning: &'static str,
    /// The figure per unit of what the engines compute it from: 1,000 for a figure per 1,000
    /// requests (the engines work per request), else 1.
    pub scale: f64,
    /// Whether the Monte Carlo estimates it (a figure) or not (an exact number, the same in
    /// both engines: [`FigureEntry::Exact`]; or a non-numeric entry: [`FigureEntry::Text`]).
    pub estimated: bool,
    /// A list entry (`answered_by`): its CSV column comes after the set's other columns.
    pub list: bool,
    /// Whether the analytic engine computes it (an analytic CSV column and JSON key); `false`
    /// for a figure only the Monte Carlo has (`dead_time_p99_s`: [`Figure::mc_only`]).
    pub analytic: bool,
    /// A count of things (requests, attempts, sessions): JSON prints its value as an integer
    /// when it is whole (`11160`, not `11160.0`; an expected count can be fractional, `6.7`,
    /// and stays a number) wherever its key appears ([`Figure::count`], `output::json`).
    pub count: bool,
    /// How the compare tables show it ([`Figure::table`], [`Figure::hidden`]).
    pub table: Show,
    /// Its CSV generation, where its columns sit in every CSV ([`Figure::csv`]): 0 for the
    /// figures of the first layouts, then one more per batch of figures added later (1:
    /// `fallback_answers_per_1k` and `answered_requests`). Each CSV kind keeps the generations
    /// it was laid out with where they always were (`compare` generation 0; `sweep` and the
    /// incident history generations 0 and 1), then appends each later generation's columns
    /// after all of its own, generation by generation, so a CSV only ever grows at the end.
    /// [`CSV_UNDECLARED`] until the declaration says (a unit test requires it).
    pub csv: u8,
    /// How the agreement check (`sim::agree`) compares the analytic value with the Monte
    /// Carlo's ([`Figure::headline`], [`Figure::checked`], [`Figure::unchecked`]).
    pub agree: Agree,
}

/// How a figure's value prints in a table cell (the formats of `crate::number`); a value that
/// does not apply (`None`) prints `–`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    /// USD (`money`: `2,284.01`, `0.0875`).
    Money,
    /// A row's total, USD: as `Money`, marked `sim ` when the row is simulated; the table's
    /// `Part` cells are rounded to add up to it (`money_adding_up`).
    Total,
    /// USD, one part of the table's `Total`.
    Part,
    /// A relative change (`change`: `+0.03%`).
    Change,
    /// A ratio (`multiplier`: `1.52x`).
    Multiplier,
    /// An expected count (`count`).
    Count,
    /// A number with at most this many decimals (`trim`).
    Decimals(usize),
    /// A whole number ([`Extra`] text, e.g. `attempts_max`).
    Integer,
    /// A list ([`Extra`]), printed by its table's own rule (`answered_by`: short model names
    /// and percentages); left-aligned.
    List,
}

/// A figure's columns in the compare tables: a chain's table (steady state, incident, policy)
/// and the blended traffic-share table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Column {
    /// Its header in a chain's table (`$/1k req`), and in the others by default.
    pub header: &'static str,
    /// Whether a chain's table shows it (not a [`Figure::sweep_only`] figure).
    pub chain: bool,
    /// How its cells print.
    pub cell: Cell,
    /// The header of its Monte Carlo column (`mean ± half-width`, the 95% interval) in a
    /// chain's table, if shown.
    pub mc: Option<&'static str>,
    /// Its header in the blended traffic-share table, if shown there.
    pub blended: Option<&'static str>,
    /// The header of its Monte Carlo column in the blended table, if shown.
    pub blended_mc: Option<&'static str>,
    /// Its header in the `sweep` table, if shown there (a steady or incident figure).
    pub sweep: Option<&'static str>,
}

/// Whether and how the compare tables show a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Show {
    /// Not said (a figure set no table walks: the unit tests require a declaration for the
    /// steady, incident and steady-policy figures).
    Undeclared,
    /// Not in the tables (JSON and CSV only).
    Hidden,
    /// In the tables, as this column.
    Column(Column),
}

/// What bounds the change one sample (a request; an incident window's request) can make to a
/// figure, for widening the agreement interval against unseen rare events (`sim::agree`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// One attempt on every link of the chain at its dearest cache state, USD.
    Usd,
    /// One (a failed request).
    One,
    /// One per link of the chain (wasted attempts, cold starts).
    Links,
    /// The most attempts a request makes under the chain's policy (the analytic outcome's
    /// `attempts_max`, at least 1).
    Attempts,
    /// Those attempts' dead time: a timeout and the longest backoff per attempt, seconds.
    DeadTime,
    /// Nothing (no widening).
    Zero,
}

/// How `sim::agree` holds a figure's Monte Carlo mean to its analytic value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agree {
    /// Not said (a figure set `sim::agree` does not walk: the incident policy figures).
    Undeclared,
    /// Not compared: not estimated, or following from figures that are (the doc comment says
    /// why).
    Unchecked,
    /// Compared: at 99% for the headline figure of a pattern, else at 99.9% (with dozens of
    /// figures per scenario a 99% interval would miss about once per hundred by chance); the
    /// interval widened by z²·bound/n.
    Checked {
        /// The pattern's headline figure (99%).
        headline: bool,
        /// What one sample can change it by.
        bound: Bound,
    },
}

impl Figure {
    /// A figure's declaration before its table and agreement are said (the `figures!` macro
    /// writes this, then the field's builder calls).
    pub const fn new(
        key: &'static str,
        unit: &'static str,
        meaning: &'static str,
        scale: f64,
        estimated: bool,
        list: bool,
    ) -> Figure {
        Figure {
            key,
            unit,
            meaning,
            scale,
            estimated,
            list,
            analytic: true,
            count: false,
            table: Show::Undeclared,
            csv: CSV_UNDECLARED,
            agree: Agree::Undeclared,
        }
    }

    /// Shown in the tables under `header`, printed as `cell`.
    pub const fn table(mut self, header: &'static str, cell: Cell) -> Figure {
        self.table = Show::Column(Column {
            header,
            chain: true,
            cell,
            mc: None,
            blended: None,
            blended_mc: None,
            sweep: None,
        });
        self
    }

    /// Its Monte Carlo column in a chain's table (after [`Figure::table`]).
    pub const fn mc(mut self, header: &'static str) -> Figure {
        match &mut self.table {
            Show::Column(c) => c.mc = Some(header),
            _ => panic!("mc() needs table() first"),
        }
        self
    }

    /// Shown in the blended table too, under `header` (after [`Figure::table`]).
    pub const fn blended(mut self, header: &'static str) -> Figure {
        match &mut self.table {
            Show::Column(c) => c.blended = Some(header),
            _ => panic!("blended() needs table() first"),
        }
        self
    }

    /// Its Monte Carlo column in the blended table (after [`Figure::table`]).
    pub const fn blended_mc(mut self, header: &'static str) -> Figure {
        match &mut self.table {
            Show::Column(c) => c.blended_mc = Some(header),
            _ => panic!("blended_mc() needs table() first"),
        }
        self
    }

    /// Shown in the `sweep` table too, under `header` (after [`Figure::table`]).
    pub const fn swept(mut self, header: &'static str) -> Figure {
        match &mut self.table {
            Show::Column(c) => c.sweep = Some(header),
            _ => panic!("swept() needs table() first"),
        }
        self
    }

    /// Shown in the `sweep` table only, under `header`, printed as `cell` (a chain's table
    /// has no room for it).
    pub const fn sweep_only(self, header: &'static str, cell: Cell) -> Figure {
        let mut f = self.table(header, cell).swept(header);
        if let Show::Column(c) = &mut f.table {
            c.chain = false;
        }
        f
    }

    /// Its CSV generation ([`Figure::csv`]): a new figure takes [`CSV_LATEST`] + 1 (and
    /// raises [`CSV_LATEST`]), or [`CSV_LATEST`] when it joins a batch not yet released.
    pub const fn csv(mut self, generation: u8) -> Figure {
        self.csv = generation;
        self
    }

    /// Not in the tables.
    pub const fn hidden(mut self) -> Figure {
        self.table = Show::Hidden;
        self
    }

    /// A count of things: printed as an integer in JSON when whole ([`Figure::count`]).
    pub const fn count(mut self) -> Figure {
        self.count = true;
        self
    }

    /// Only the Monte Carlo has it: no analytic CSV column or JSON key.
    pub const fn mc_only(mut self) -> Figure {
        self.analytic = false;
        self
    }

    /// The pattern's headline figure: agreement checked at 99%, widened by `bound`.
    pub const fn headline(mut self, bound: Bound) -> Figure {
        self.agree = Agree::Checked {
            headline: true,
            bound,
        };
        self
    }

    /// Agreement checked at 99.9%, widened by `bound`.
    pub const fn checked(mut self, bound: Bound) -> Figure {
        self.agree = Agree::Checked {
            headline: false,
            bound,
        };
        self
    }

    /// Agreement not checked.
    pub const fn unchecked(mut self) -> Figure {
        self.agree = Agree::Unchecked;
        self
    }

    /// Its column in the tables, if shown.
    pub const fn column(&self) -> Option<&Column> {
        match &self.table {
            Show::Column(c) => Some(c),
            _ => None,
        }
    }
}

/// A declared entry that is not a number with an interval (`attempts_max`, `answered_by`):
/// serialised as its own JSON value, one text cell in CSV, and not combined by the
/// declaration (`combine` leaves it at its default; the caller sets it).
pub trait Extra: Serialize + Default {
    /// Its CSV cell (before formula guarding).
    fn text(&self) -> String;
}

impl Extra for u32 {
    fn text(&self) -> String {
        self.to_string()
    }
}

/// A Monte Carlo estimate as reported: the mean and its 95% interval, in the figure's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanCi {
    /// The simulated mean.
    pub mean: f64,
    /// Its 95% interval.
    pub ci95: Ci,
}

/// The value type of a figure set: `f64` (analytic) or [`MeanCi`] (Monte Carlo).
pub trait Value: Copy {
    /// The suffixes of this value's CSV columns after `KEY`: none for `f64`; `_ci95_lo` and
    /// `_ci95_hi` for an estimate.
    const CSV_SUFFIXES: &'static [&'static str];

    /// Its numbers, in CSV column order: the value; the mean, low and high end.
    fn numbers(&self) -> Vec<f64>;

    /// Write figure `key` holding `value` into a JSON map: `KEY` (and `KEY_ci95` for an
    /// estimate), `null` for `None`.
    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error>;
}

impl Value for f64 {
    const CSV_SUFFIXES: &'static [&'static str] = &[];

    fn numbers(&self) -> Vec<f64> {
        vec![*self]
    }

    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error> {
        map.serialize_entry(key, &value)
    }
}

impl Value for MeanCi {
    const CSV_SUFFIXES: &'static [&'static str] = &["_ci95_lo", "_ci95_hi"];

    fn numbers(&self) -> Vec<f64> {
        vec![self.mean, self.ci95[0], self.ci95[1]]
    }

    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error> {
        map.serialize_entry(key, &value.map(|v| v.mean))?;
        map.serialize_entry(&format!("{key}_ci95"), &value.map(|v| v.ci95))
    }
}

/// A running statistic of one figure over a simulator's samples (`sim::stats`: `Sum`, and
/// `Shifted` in a hot loop): a figure set of accumulators (`SteadyFigures<Sum>`) adds a sample's
/// bill with the generated `add`.
pub trait Accumulate: Default {
    /// Add one sample, in the figure's engine unit (per request, per window).
    fn add(&mut self, x: f64);
}

/// An accumulator that also takes counted samples and merges (`sim::stats::Sum`): the
/// generated `add_many` and `merge`.
pub trait Merge: Accumulate + Clone {
    /// Add `n` samples all equal to `x`.
    fn add_many(&mut self, x: f64, n: u64);
    /// Merge `other` into `self`.
    fn merge(&mut self, other: &Self);
}

/// One entry of a figure set, as `visit` hands it out.
#[derive(Debug, Clone, PartialEq)]
pub enum FigureEntry<'a, V> {
    /// A figure both engines compute: its value, `None` where it does not apply (a ratio to a
    /// free primary).
    Figure(Option<&'a V>),
    /// A figure that is not random (the same in both engines), e.g. the healthy-primary bill:
    /// a plain number, absent where the set does not carry it.
    Exact(Option<f64>),
    /// A non-numeric entry ([`Extra`]): its CSV cell.
    Text(String),
}

/// Declare a figure set: a struct generic over its [`Value`] type, with one field per figure,
/// and its descriptors, serialisation, visitors and combination.
///
/// Each field is its doc comment (the meaning), then
/// `KIND name: TYPE = "unit", scale, builder(…), …;` where the builder calls are
/// [`Figure`]'s (`table`, `mc`, `blended`, `blended_mc`, `hidden`; `headline`, `checked`,
/// `unchecked`; `mc_only`; `count`; `csv`, required), e.g.
///
/// ```text
/// /// Requests per 1,000 that fail on every link tried.
/// fig failed_per_1k: V = "requests per 1,000", 1000.0,
///     table("failed/1k", Cell::Count), mc("MC failed/1k"), checked(Bound::One), csv(0);
/// ```
///
/// Kinds: `fig` (a figure: `V`), `opt` (a figure that may not apply: `Option<V>`, `null` in
/// JSON then), `skip` (the same, absent from JSON when `None`), `exact` (a number without an
/// interval: `Option<f64>`, absent from JSON when `None`), and `extra` / `list` (an [`Extra`]
/// value of its own type, e.g. `u32`; `list`: a list whose CSV column goes last). The type is
/// spelled out (`V`, `Option<V>`, `Option<f64>`); the scale is the figure per unit of what the
/// engines compute ([`Figure::scale`]).
macro_rules! figures {
    (@estimated exact) => { false };
    (@estimated extra) => { false };
    (@estimated list) => { false };
    (@estimated $kind:ident) => { true };
    (@list list) => { true };
    (@list $kind:ident) => { false };
    (@entry fig, $x:expr) => { FigureEntry::Figure(Some($x)) };
    (@entry opt, $x:expr) => { FigureEntry::Figure($x.as_ref()) };
    (@entry skip, $x:expr) => { FigureEntry::Figure($x.as_ref()) };
    (@entry exact, $x:expr) => { FigureEntry::Exact(*$x) };
    (@entry extra, $x:expr) => { FigureEntry::Text(Extra::text($x)) };
    (@entry list, $x:expr) => { FigureEntry::Text(Extra::text($x)) };
    (@ser fig, $map:expr, $key:expr, $x:expr) => { V::serialize_entries(Some($x), $key, $map)? };
    (@ser opt, $map:expr, $key:expr, $x:expr) => { V::serialize_entries($x.as_ref(), $key, $map)? };
    (@ser skip, $map:expr, $key:expr, $x:expr) => {
        if let Some(x) = $x {
            V::serialize_entries(Some(x), $key, $map)?;
        }
    };
    (@ser extra, $map:expr, $key:expr, $x:expr) => { $map.serialize_entry($key, $x)? };
    (@ser list, $map:expr, $key:expr, $x:expr) => { $map.serialize_entry($key, $x)? };
    (@ser exact, $map:expr, $key:expr, $x:expr) => {
        if let Some(x) = $x {
            $map.serialize_entry($key, x)?;
        }
    };
    (@combine fig, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        match $parts {
            // one part (a chain's own row): no list to allocate
            [(w, p)] => $figure($fig, &[(*w, &p.$name)]),
            _ => $figure($fig, &$parts.iter().map(|(w, p)| (*w, &p.$name)).collect::<Vec<_>>()),
        }
    };
    (@combine extra, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {{
        let _ = $fig;
        Default::default()
    }};
    (@combine list, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {{
        let _ = $fig;
        Default::default()
    }};
    (@combine skip, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        figures!(@combine opt, $parts, $fig, $name, $figure, $exact)
    };
    (@combine opt, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        match $parts {
            [(w, p)] => p.$name.as_ref().map(|x| $figure($fig, &[(*w, x)])),
            _ => $parts
                .iter()
                .map(|(w, p)| p.$name.as_ref().map(|x| (*w, x)))
                .collect::<Option<Vec<_>>>()
                .map(|xs| $figure($fig, &xs)),
        }
    };
    (@combine exact, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        match $parts {
            [(w, p)] => p.$name.and_then(|x| $exact($fig, &[(*w, x)])),
            _ => $parts
                .iter()
                .map(|(w, p)| p.$name.map(|x| (*w, x)))
                .collect::<Option<Vec<_>>>()
                .and_then(|xs| $exact($fig, &xs)),
        }
    };
    (@add fig, $acc:expr, $bill:expr) => { $acc.add($bill) };
    (@add opt, $acc:expr, $bill:expr) => {
        if let Some(x) = $bill {
            $acc.get_or_insert_with(Default::default).add(x);
        }
    };
    (@add skip, $acc:expr, $bill:expr) => { figures!(@add opt, $acc, $bill) };
    (@add $kind:ident, $acc:expr, $bill:expr) => {{
        let _ = (&$acc, &$bill);
    }};
    (@add_many fig, $acc:expr, $bill:expr, $n:expr) => { $acc.add_many($bill, $n) };
    (@add_many opt, $acc:expr, $bill:expr, $n:expr) => {
        if let Some(x) = $bill {
            $acc.get_or_insert_with(Default::default).add_many(x, $n);
        }
    };
    (@add_many skip, $acc:expr, $bill:expr, $n:expr) => { figures!(@add_many opt, $acc, $bill, $n) };
    (@add_many $kind:ident, $acc:expr, $bill:expr, $n:expr) => {{
        let _ = (&$acc, &$bill, $n);
    }};
    (@merge fig, $acc:expr, $other:expr) => { $acc.merge(&$other) };
    (@merge opt, $acc:expr, $other:expr) => {
        if let Some(x) = &$other {
            match &mut $acc {
                Some(a) => a.merge(x),
                None => $acc = Some(x.clone()),
            }
        }
    };
    (@merge skip, $acc:expr, $other:expr) => { figures!(@merge opt, $acc, $other) };
    (@merge $kind:ident, $acc:expr, $other:expr) => {{
        let _ = (&$acc, &$other);
    }};
    (@map fig, $x:expr, $f:expr) => { $f($x) };
    (@map opt, $x:expr, $f:expr) => { $x.as_ref().map(&mut $f) };
    (@map skip, $x:expr, $f:expr) => { $x.as_ref().map(&mut $f) };
    (@map $kind:ident, $x:expr, $f:expr) => { $x.clone() };
    (
        $(#[$meta:meta])*
        pub struct $name:ident, $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $kind:ident $field:ident : $ty:ty = $unit:literal, $scale:literal
                    $(, $attr:ident ( $($arg:expr),* ))* ;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $name<V> {
            $(
                $(#[doc = $doc])*
                #[doc = concat!("\n\nUnit: ", $unit, ".")]
                pub $field: $ty,
            )*
        }

        #[doc = concat!("The figures of [`", stringify!($name), "`], in declaration order.")]
        pub const $table: &[Figure] = &[
            $(Figure::new(
                stringify!($field),
                $unit,
                concat!($($doc),*),
                $scale,
                figures!(@estimated $kind),
                figures!(@list $kind),
            ) $(.$attr($($arg),*))*,)*
        ];

        impl<V> $name<V> {
            /// Hand every entry to `f` with its declaration, in declaration order.
            pub fn visit<'a>(&'a self, mut f: impl FnMut(&'static Figure, FigureEntry<'a, V>)) {
                let mut figures = $table.iter();
                $(
                    f(
                        figures.next().expect("one descriptor per field"),
                        figures!(@entry $kind, &self.$field),
                    );
                )*
            }

            /// Hand every entry of `self` and of `other` (the same figure set with other
            /// values, e.g. the analytic values and the simulator's sums) to `f` together,
            /// with its declaration, in declaration order.
            pub fn visit_pair<'a, S>(
                &'a self,
                other: &'a $name<S>,
                mut f: impl FnMut(&'static Figure, FigureEntry<'a, V>, FigureEntry<'a, S>),
            ) {
                let mut figures = $table.iter();
                $(
                    f(
                        figures.next().expect("one descriptor per field"),
                        figures!(@entry $kind, &self.$field),
                        figures!(@entry $kind, &other.$field),
                    );
                )*
            }

            /// Combine the sets of several parts (one chain's own row: one part; a blended
            /// row: every chain, with its weight) figure by figure: `figure` combines a
            /// figure's weighted values, `exact` an exact number's. A figure that some part
            /// lacks is `None`.
            #[allow(unused_mut, unused_variables)] // a set without exact numbers
            pub fn combine<S>(
                parts: &[(f64, &$name<S>)],
                mut figure: impl FnMut(&'static Figure, &[(f64, &S)]) -> V,
                mut exact: impl FnMut(&'static Figure, &[(f64, f64)]) -> Option<f64>,
            ) -> $name<V> {
                let mut figures = $table.iter();
                $(
                    let fig = figures.next().expect("one descriptor per field");
                    let $field = figures!(@combine $kind, parts, fig, $field, figure, exact);
                )*
                $name { $($field,)* }
            }
        }

        impl<V> $name<V> {
            /// The same set with every figure's value mapped by `f` (an accumulator's
            /// `finish`: a chunk's `Shifted` sums to `Sum`s, `Sum`s to their means); the
            /// exact, extra and list entries copied.
            pub fn map<U>(&self, mut f: impl FnMut(&V) -> U) -> $name<U> {
                $name { $($field: figures!(@map $kind, &self.$field, f),)* }
            }
        }

        impl<V: Accumulate> $name<V> {
            /// Add one sample (a simulated request's or window's bill, the same set with
            /// plain values) to this set of accumulators: every figure, and an optional one
            /// where the bill has it. Exact, extra and list entries are the caller's.
            #[allow(unused_variables)]
            pub fn add(&mut self, bill: &$name<f64>) {
                $(figures!(@add $kind, self.$field, bill.$field);)*
            }
        }

        impl<V: Merge> $name<V> {
            /// Add `n` samples all equal to `bill` (the counted common outcomes).
            #[allow(unused_variables)]
            pub fn add_many(&mut self, bill: &$name<f64>, n: u64) {
                $(figures!(@add_many $kind, self.$field, bill.$field, n);)*
            }

            /// Merge `other`'s accumulators into these, figure by figure (call in chunk
            /// order: float addition is not associative).
            #[allow(unused_variables)]
            pub fn merge(&mut self, other: &$name<V>) {
                $(figures!(@merge $kind, self.$field, other.$field);)*
            }
        }

        impl<V: Value> Serialize for $name<V> {
            fn serialize<Se: serde::Serializer>(&self, serializer: Se) -> Result<Se::Ok, Se::Error> {
                let mut map = serializer.serialize_map(None)?;
                $(
                    figures!(@ser $kind, &mut map, stringify!($field), &self.$field);
                )*
                map.end()
            }
        }
    };
}

figures! {
    /// The steady-state figures of a row (MODEL.md §10), per 1,000 requests: the analytic
    /// engine's expectations (`V = f64`) or the Monte Carlo's means with their intervals
    /// (`V = MeanCi`).
    pub struct SteadyFigures, STEADY_FIGURES {
        /// Expected USD per 1,000 requests.
        fig cost_per_1k_usd: V = "USD per 1,000 requests", 1000.0,
            table("$/1k req", Cell::Money), mc("MC $/1k ± 95%"),
            blended("$/1k req"), blended_mc("MC $/1k ± 95%"), swept("$/1k req"),
            headline(Bound::Usd), csv(0);
        /// The healthy, warm primary alone, USD per 1,000 requests (not random: the analytic
        /// rows only; the tables print it in a note).
        exact baseline_per_1k_usd: Option<f64> = "USD per 1,000 requests", 1000.0,
            hidden(), unchecked(), csv(0);
        /// cost / baseline − 1 (0.0003 for +0.03%); `null` for a free primary. Agreement:
        /// the cost over an exact baseline, so it agrees when the cost does.
        opt vs_baseline: Option<V> = "ratio", 1.0,
            table("vs primary", Cell::Change), blended("vs primaries"), swept("vs primary"),
            unchecked(), csv(0);
        /// Requests per 1,000 that fail on every link tried.
        fig failed_per_1k: V = "requests per 1,000", 1000.0,
            table("failed/1k", Cell::Count), mc("MC failed/1k"),
            blended("failed/1k"), blended_mc("MC failed/1k"), swept("failed/1k"),
            checked(Bound::One), csv(0);
        /// Attempts per 1,000 requests that did not produce the answer (failures, hedge losers).
        fig wasted_attempts_per_1k: V = "attempts per 1,000 requests", 1000.0,
            hidden(), checked(Bound::Links), csv(0);
        /// USD per 1,000 requests spent on those attempts.
        fig wasted_per_1k_usd: V = "USD per 1,000 requests", 1000.0,
            hidden(), checked(Bound::Usd), csv(0);
        /// Requests per 1,000 answered by a fallback link (a failover, or a hedge's second leg
        /// winning): the share of the traffic the chain's fallbacks carry.
        fig fallback_answers_per_1k: V = "requests per 1,000", 1000.0,
            table("fallback/1k", Cell::Count), blended("fallback/1k"), swept("fallback/1k"),
            checked(Bound::One), csv(1);
    }
}

figures! {
    /// The incident figures of a row (MODEL.md §6, §10), over the outage window: the analytic
    /// engine's expectations (`V = f64`) or the Monte Carlo's means over its windows with their
    /// intervals (`V = MeanCi`).
    pub struct IncidentFigures, INCIDENT_FIGURES {
        /// window + cold starts + fail-back writes.
        fig total_usd: V = "USD", 1.0,
            table("total USD", Cell::Total), mc("MC total ± 95%"),
            blended("incident USD"), blended_mc("MC incident ± 95%"), swept("incident USD"),
            headline(Bound::Usd), csv(0);
        /// The primary-alone bill for the same requests, healthy and warm (not random; the
        /// tables print it in a note).
        exact normal_usd: Option<f64> = "USD", 1.0, hidden(), unchecked(), csv(0);
        /// total / normal; `null` for a free primary. Agreement: the total over an exact
        /// bill, so it agrees when the total does.
        opt multiplier: Option<V> = "ratio", 1.0,
            table("x normal", Cell::Multiplier), blended("x normal"), swept("x normal"),
            unchecked(), csv(0);
        /// The window's requests at warm prices, failed attempts included.
        fig window_usd: V = "USD", 1.0, table("window", Cell::Part), checked(Bound::Usd), csv(0);
        /// Premium of sessions' first requests on a cold fallback.
        fig cold_start_usd: V = "USD", 1.0,
            table("cold starts", Cell::Part), checked(Bound::Usd), csv(0);
        /// Premium of rewriting the primary's cache on the way back.
        fig failback_usd: V = "USD", 1.0,
            table("fail-back writes", Cell::Part), checked(Bound::Zero), csv(0);
        /// Requests that failed on every link (expected count).
        fig failed_requests: V = "requests", 1.0,
            table("failed requests", Cell::Count), mc("MC failed"), checked(Bound::One), count(),
            csv(0);
        /// Attempts that did not produce the answer (expected count).
        fig wasted_attempts: V = "attempts", 1.0, hidden(), checked(Bound::Links), count(), csv(0);
        /// USD spent on those attempts (included in `window_usd`).
        fig wasted_usd: V = "USD", 1.0, hidden(), checked(Bound::Usd), csv(0);
        /// Sessions that started cold on a fallback (expected count).
        fig cold_starts: V = "sessions", 1.0, hidden(), checked(Bound::Links), count(), csv(0);
        /// Sessions that rewrite the primary's cache on the way back.
        fig failback_writes: V = "sessions", 1.0, hidden(), checked(Bound::Zero), count(), csv(0);
        /// What the incident costs beyond the normal bill: total − normal (window premium,
        /// cold starts and fail-back writes; negative when the fallback is cheaper).
        /// Agreement: the total less an exact bill, so it agrees when the total does.
        fig excess_usd: V = "USD", 1.0, hidden(), unchecked(), csv(0);
        /// Requests answered over the window, by any link (expected count): requests − failed.
        /// In the shorthand, whose primary's provider is down throughout, a fallback answers
        /// every one of them.
        fig answered_requests: V = "requests", 1.0,
            sweep_only("answered", Cell::Count), checked(Bound::One), count(), csv(1);
        /// Attempts a link's rate limit refused over the window (`[capacity]`: a 429, fast,
        /// billed 0; MODEL.md §11), expected count; 0 where no link has a limit. Counted by the
        /// incident simulator (a chain with a limit has its incident rows simulated); the
        /// tables say it in a note, per link.
        fig rate_limited_attempts: V = "attempts", 1.0, hidden(), checked(Bound::Links),
            count(), csv(2);
        /// Requests whose route passed over a fallback that cannot serve them (its context
        /// window or a capability the request needs: a 400, billed 0; MODEL.md §11), expected
        /// count, each request once; 0 where every link can serve the request.
        fig refused_requests: V = "requests", 1.0, hidden(), checked(Bound::One), count(),
            csv(3);
    }
}

figures! {
    /// The policy figures of a steady-state row (MODEL.md §8): the analytic engine's
    /// expectations on every row (`V = f64`, no `dead_time_p99_s`), and under a non-default
    /// policy the Monte Carlo's, each with its 95% interval as `KEY_ci95` (`V = MeanCi`). A
    /// blended row has them (the Monte Carlo's: when every chain has a policy) combined as in
    /// [`SteadyFigures`], `attempts_max` the largest of the chains', `answered_by` merged by
    /// model, no `dead_time_p99_s`.
    pub struct SteadyPolicyFigures, STEADY_POLICY_FIGURES {
        /// Mean attempts per request.
        fig attempts_per_request: V = "attempts per request", 1.0,
            table("attempts", Cell::Decimals(4)), checked(Bound::Attempts), csv(0);
        /// The most attempts any simulated request made (agreement: a maximum, not a mean).
        extra attempts_max: u32 = "attempts", 1.0, table("max", Cell::Integer), count(),
            unchecked(), csv(0);
        /// Mean seconds per request in failed attempts and backoff before the answer (or error).
        fig dead_time_mean_s: V = "seconds per request", 1.0,
            table("dead time s", Cell::Decimals(3)), checked(Bound::DeadTime), csv(0);
        /// 99th-percentile dead time (0 when fewer than 1% of requests wait at all). `None`
        /// (absent in JSON) on the blended traffic-share rows: the policy simulator keeps its
        /// dead-time histograms to itself, and a mixture's percentile is not the weighted mean
        /// of the chains' percentiles. The policy table prints it in its Monte Carlo column,
        /// after the mean.
        exact dead_time_p99_s: Option<f64> = "seconds", 1.0,
            mc_only(), hidden(), unchecked(), csv(0);
        /// Share of requests answered by each model of the chain, in chain order (CSV:
        /// `model=share;…`). Agreement: link by link (`sim::agree`).
        list answered_by: Vec<Answered> = "share of all requests", 1.0,
            table("answered by", Cell::List), checked(Bound::One), csv(0);
        /// Requests per 1,000 stopped by the call cap.
        fig call_cap_hits_per_1k: V = "requests per 1,000", 1000.0,
            table("call-cap hits/1k", Cell::Count), checked(Bound::One), csv(0);
        /// Requests per 1,000 that reached a fallback after one the cost cap skipped.
        fig cost_cap_hits_per_1k: V = "requests per 1,000", 1000.0,
            table("cost-cap hits/1k", Cell::Count), checked(Bound::One), csv(0);
        /// Requests per 1,000 whose route passed over a fallback that cannot serve them (its
        /// context window or a capability the request needs: a 400, billed 0; MODEL.md §11),
        /// each request once however many such links it passed.
        fig refused_per_1k: V = "requests per 1,000", 1000.0,
            table("refused/1k", Cell::Count), checked(Bound::One), csv(3);
    }
}

figures! {
    /// The Monte Carlo figures of an incident row under a policy, each with its 95% interval as
    /// `KEY_ci95` (`V = MeanCi`): per window unless stated. A blended row weights the dead time
    /// per request by traffic share, adds up the attempts on the dead provider, and has no
    /// breaker figures.
    pub struct IncidentPolicyFigures, INCIDENT_POLICY_FIGURES {
        /// Mean seconds per request in failed attempts and backoff (hedges: the slower failed
        /// leg included).
        fig dead_time_mean_s: V = "seconds per request", 1.0, csv(0);
        /// Attempts sent to the dead provider.
        fig dead_provider_attempts: V = "attempts", 1.0, csv(0);
        /// With a circuit breaker: half-open probes sent. `None` (absent) on a blended row:
        /// each chain's breaker is simulated apart, so their sum would describe no breaker.
        skip breaker_probes: Option<V> = "probes", 1.0, csv(0);
        /// With a circuit breaker: seconds it was open within the window (absent on a blended
        /// row, as `breaker_probes`).
        skip breaker_open_s: Option<V> = "seconds", 1.0, csv(0);
        /// With a circuit breaker on an incident timeline: times the breakers opened from closed (a partial outage makes one flap); absent in the shorthand (its dead provider's opens once) and on a blended row.
        skip breaker_opens: Option<V> = "openings", 1.0, csv(0);
    }
}
/// The newest CSV generation a figure declares ([`Figure::csv`]).
pub const CSV_LATEST: u8 = 3;

/// The CSV generation of a figure whose declaration does not say one (a unit test fails on it;
/// its columns would go after every other).
pub const CSV_UNDECLARED: u8 = u8::MAX;

/// A range of CSV generations, `first..=last` ([`Figure::csv`]): the figures one group of a
/// CSV's columns holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvGenerations {
    /// The oldest generation held.
    pub first: u8,
    /// The newest generation held.
    pub last: u8,
}

impl CsvGenerations {
    /// Generations 0 to `last`: the ones a CSV kind was laid out with.
    pub const fn through(last: u8) -> CsvGenerations {
        CsvGenerations { first: 0, last }
    }

    /// Generation `g` alone: one batch appended to a CSV.
    pub const fn only(g: u8) -> CsvGenerations {
        CsvGenerations { first: g, last: g }
    }

    /// Whether `figure`'s generation is in the range.
    pub fn holds(self, figure: &Figure) -> bool {
        (self.first..=self.last).contains(&figure.csv)
    }
}

/// The CSV generations of the declared figures after `base` (a CSV kind's own), oldest first,
/// each once: the batches a CSV laid out with generations up to `base` appends, in order.
pub fn csv_generations_after(base: u8) -> Vec<u8> {
    let mut g: Vec<u8> = ALL_SETS
        .iter()
        .flat_map(|s| s.iter())
        .map(|f| f.csv)
        .filter(|&g| g > base)
        .collect();
    g.sort_unstable();
    g.dedup();
    g
}

/// Every figure set's declaration: steady, incident, steady policy, incident policy.
pub const ALL_SETS: [&[Figure]; 4] = [
    STEADY_FIGURES,
    INCIDENT_FIGURES,
    STEADY_POLICY_FIGURES,
    INCIDENT_POLICY_FIGURES,
];

/// Whether `key` is a declared figure that is a count ([`Figure::count`]) in any set.
pub fn is_count(key: &str) -> bool {
    ALL_SETS
        .iter()
        .flat_map(|s| s.iter())
        .any(|f| f.count && f.key == key)
}

/// The share of requests one model answered.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Answered {
    /// The model, `provider/model`.
    pub model: String,
    /// Share of all requests, in [0, 1].
    pub share: f64,
}

impl Extra for Vec<Answered> {
    /// `model=share` per model, `;`-separated.
    fn text(&self) -> String {
        let parts: Vec<String> = self
            .iter()
            .map(|a| format!("{}={}", a.model, a.share))
            .collect();
        parts.join(";")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sets the compare tables walk (`output::layout`) and the sets `sim::agree` walks.
    const TABLE_SETS: [&[Figure]; 3] = [STEADY_FIGURES, INCIDENT_FIGURES, STEADY_POLICY_FIGURES];
    const AGREE_SETS: [&[Figure]; 3] = [STEADY_FIGURES, INCIDENT_FIGURES, STEADY_POLICY_FIGURES];

    #[test]
    fn every_figure_a_table_walks_has_a_column_or_is_marked_hidden() {
        for set in TABLE_SETS {
            for f in set {
                assert_ne!(f.table, Show::Undeclared, "{}: table() or hidden()", f.key);
            }
        }
        // What is shown, in declaration order.
        let shown = |set: &[Figure]| -> Vec<&str> {
            set.iter()
                .filter_map(|f| f.column().map(|_| f.key))
                .collect()
        };
        assert_eq!(
            shown(STEADY_FIGURES),
            [
                "cost_per_1k_usd",
                "vs_baseline",
                "failed_per_1k",
                "fallback_answers_per_1k"
            ]
        );
        assert_eq!(
            shown(INCIDENT_FIGURES),
            [
                "total_usd",
                "multiplier",
                "window_usd",
                "cold_start_usd",
                "failback_usd",
                "failed_requests",
                "answered_requests"
            ]
        );
        assert_eq!(
            shown(STEADY_POLICY_FIGURES),
            [
                "attempts_per_request",
                "attempts_max",
                "dead_time_mean_s",
                "answered_by",
                "call_cap_hits_per_1k",
                "cost_cap_hits_per_1k",
                "refused_per_1k"
            ]
        );
    }

    #[test]
    fn a_set_with_parts_has_one_total_and_only_estimates_have_mc_columns() {
        for set in TABLE_SETS {
            let cells = |c: Cell| {
                set.iter()
                    .filter(move |f| f.column().is_some_and(|x| x.cell == c))
            };
            let parts = cells(Cell::Part).count();
            assert!(parts == 0 || cells(Cell::Total).count() == 1);
            assert!(cells(Cell::Total).count() <= 1);
            for f in set {
                if let Some(c) = f.column()
                    && (c.mc.is_some() || c.blended_mc.is_some())
                {
                    assert!(f.estimated, "{}: an MC column needs an estimate", f.key);
                }
            }
        }
    }

    #[test]
    fn every_estimated_figure_says_how_it_agrees() {
        for set in AGREE_SETS {
            for f in set {
                assert_ne!(f.agree, Agree::Undeclared, "{}", f.key);
                if let Agree::Checked { .. } = f.agree {
                    assert!(
                        f.estimated || f.list,
                        "{}: only an estimate (or a list of them) can be checked",
                        f.key
                    );
                }
            }
        }
        // One headline per pattern's set, its first figure; the policy set has none.
        let headlines = |set: &[Figure]| -> Vec<&str> {
            set.iter()
                .filter(|f| matches!(f.agree, Agree::Checked { headline: true, .. }))
                .map(|f| f.key)
                .collect()
        };
        assert_eq!(headlines(STEADY_FIGURES), ["cost_per_1k_usd"]);
        assert_eq!(headlines(INCIDENT_FIGURES), ["total_usd"]);
        assert!(headlines(STEADY_POLICY_FIGURES).is_empty());
        // The policy bounds are the policy's: steady and incident figures do not use them.
        for f in STEADY_FIGURES.iter().chain(INCIDENT_FIGURES) {
            assert!(!matches!(
                f.agree,
                Agree::Checked {
                    bound: Bound::Attempts | Bound::DeadTime,
                    ..
                }
            ));
        }
        let checked = |set: &[Figure]| -> Vec<(&str, Bound)> {
            set.iter()
                .filter_map(|f| match f.agree {
                    Agree::Checked { bound, .. } => Some((f.key, bound)),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            checked(STEADY_FIGURES),
            [
                ("cost_per_1k_usd", Bound::Usd),
                ("failed_per_1k", Bound::One),
                ("wasted_attempts_per_1k", Bound::Links),
                ("wasted_per_1k_usd", Bound::Usd),
                ("fallback_answers_per_1k", Bound::One)
            ]
        );
        assert_eq!(checked(INCIDENT_FIGURES).len(), 12);
        assert_eq!(
            checked(STEADY_POLICY_FIGURES),
            [
                ("attempts_per_request", Bound::Attempts),
                ("dead_time_mean_s", Bound::DeadTime),
                ("answered_by", Bound::One),
                ("call_cap_hits_per_1k", Bound::One),
                ("cost_cap_hits_per_1k", Bound::One),
                ("refused_per_1k", Bound::One)
            ]
        );
    }

    /// Every figure declares its CSV generation, the newest is [`CSV_LATEST`], and the figures
    /// added after the first layouts are generation 1, then 2; the sweep table shows the figures the
    /// first sweeps printed, then the added ones.
    #[test]
    fn every_figure_declares_its_csv_generation() {
        let all = || ALL_SETS.iter().flat_map(|s| s.iter());
        for f in all() {
            assert!(
                f.csv <= CSV_LATEST,
                "{}: csv({}), at most {CSV_LATEST}",
                f.key,
                f.csv
            );
        }
        assert_eq!(all().map(|f| f.csv).max(), Some(CSV_LATEST));
        let later: Vec<&str> = all().filter(|f| f.csv == 1).map(|f| f.key).collect();
        assert_eq!(later, ["fallback_answers_per_1k", "answered_requests"]);
        let latest: Vec<&str> = all().filter(|f| f.csv == 2).map(|f| f.key).collect();
        assert_eq!(latest, ["rate_limited_attempts"]);
        let newest: Vec<&str> = all().filter(|f| f.csv == 3).map(|f| f.key).collect();
        assert_eq!(newest, ["refused_requests", "refused_per_1k"]);
        assert_eq!(
            Figure::new("k", "u", "m", 1.0, true, false).csv,
            CSV_UNDECLARED
        );
        let swept: Vec<&str> = STEADY_FIGURES
            .iter()
            .chain(INCIDENT_FIGURES)
            .filter(|f| f.column().is_some_and(|c| c.sweep.is_some()))
            .map(|f| f.key)
            .collect();
        assert_eq!(
            swept,
            [
                "cost_per_1k_usd",
                "vs_baseline",
                "failed_per_1k",
                "fallback_answers_per_1k",
                "total_usd",
                "multiplier",
                "answered_requests"
            ]
        );
    }

    #[test]
    fn the_analytic_engine_lacks_only_the_dead_time_percentile() {
        let mc_only: Vec<&str> = ALL_SETS
            .iter()
            .flat_map(|s| s.iter())
            .filter(|f| !f.analytic)
            .map(|f| f.key)
            .collect();
        assert_eq!(mc_only, ["dead_time_p99_s"]);
    }

    #[test]
    fn the_counts_are_the_whole_things_counted() {
        let counts: Vec<&str> = ALL_SETS
            .iter()
            .flat_map(|s| s.iter())
            .filter(|f| f.count)
            .map(|f| f.key)
            .collect();
        assert_eq!(
            counts,
            [
                "failed_requests",
                "wasted_attempts",
                "cold_starts",
                "failback_writes",
                "answered_requests",
                "rate_limited_attempts",
                "refused_requests",
                "attempts_max"
            ]
        );
        assert!(is_count("attempts_max") && !is_count("failed_per_1k") && !is_count("runs"));
    }

    #[test]
    fn visit_pair_hands_out_both_sets_in_declaration_order() {
        let a = SteadyPolicyFigures {
            attempts_per_request: 1.5,
            attempts_max: 3,
            dead_time_mean_s: 0.25,
            dead_time_p99_s: None,
            answered_by: vec![Answered {
                model: "a/x".into(),
                share: 1.0,
            }],
            call_cap_hits_per_1k: 2.0,
            cost_cap_hits_per_1k: 0.0,
            refused_per_1k: 0.0,
        };
        let b = SteadyPolicyFigures {
            attempts_per_request: "attempts",
            attempts_max: 4,
            dead_time_mean_s: "dead",
            dead_time_p99_s: Some(9.0),
            answered_by: Vec::new(),
            call_cap_hits_per_1k: "call",
            cost_cap_hits_per_1k: "cost",
            refused_per_1k: "refused",
        };
        let mut seen = Vec::new();
        a.visit_pair(&b, |f, x, y| seen.push((f.key, x, y)));
        assert_eq!(seen.len(), STEADY_POLICY_FIGURES.len());
        assert_eq!(
            seen[0],
            (
                "attempts_per_request",
                FigureEntry::Figure(Some(&1.5)),
                FigureEntry::Figure(Some(&"attempts"))
            )
        );
        assert_eq!(
            seen[1],
            (
                "attempts_max",
                FigureEntry::Text("3".into()),
                FigureEntry::Text("4".into())
            )
        );
        assert_eq!(
            seen[3],
            (
                "dead_time_p99_s",
                FigureEntry::Exact(None),
                FigureEntry::Exact(Some(9.0))
            )
        );
        assert_eq!(
            seen[4],
            (
                "answered_by",
                FigureEntry::Text("a/x=1".into()),
                FigureEntry::Text(String::new())
            )
        );
    }
}
