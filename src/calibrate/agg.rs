//! The [`Aggregator`]: what every reader hands its attempts to. It keeps sums and sparse
//! histograms per model and per chain link, a bounded buffer of the requests whose spans may
//! still arrive, a hash sample of the sessions, the earliest and latest request starts, and a
//! bounded set of recent record ids (duplicates). Memory is flat in the number of records.

use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};

use super::cache::CacheStats;
use super::stats::{ClassHist, LogHist, Mean};
use crate::model::policy::ErrorClass;

/// How many unreadable records are listed by file and line; the rest are only counted.
pub const BAD_SHOWN: usize = 5;

/// Requests kept open waiting for more of their spans; past this the oldest is closed.
const OPEN_REQUESTS: usize = 1 << 16;

/// Record ids remembered to find duplicates: a duplicate further back than this many records
/// is not found.
pub const RECENT_IDS: usize = 1 << 18;

/// Sessions counted exactly; past this a hash sample of them (half, a quarter, ...) is kept,
/// every kept session counted whole.
pub const SESSIONS_KEPT: usize = 1 << 18;

/// Starts kept at each end of the log: the request rate is measured between the m-th earliest
/// and the m-th latest start, m = min(1% of the requests, this).
pub const TRIM_MAX: usize = 1000;

/// Bytes the models' latency bins and zero-read prompt bins may take together (6 and 26 bytes
/// a bin in use). Past it every model's bins are widened ([`Aggregator::bin_shift`] grows by
/// one: twice as wide), until they fit or are an octave wide. A log with a few models never
/// comes near it (a model whose latency and prompts span the whole range from 1e-3 to 1e9
/// takes 82 KB: 300 of them fit), so its bins stay 1.09% wide.
pub const BIN_BUDGET: usize = 24 << 20;

/// Successful attempts between two checks of [`BIN_BUDGET`] (each may add a bin: at most
/// 16,384 × 26 bytes past the budget between checks).
const BUDGET_EVERY: u32 = 1 << 14;

/// The most tokens one attempt can carry: no model's context window comes within a tenth of
/// this; a record past it is impossible (a unit or overflow error) and left out.
pub const MAX_TOKENS: u64 = 100_000_000;

/// The longest an attempt can last, seconds (a day): a record past it is impossible and left out.
pub const MAX_DURATION_S: f64 = 86_400.0;

/// One attempt (one call to one model), as a reader hands it over.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoggedAttempt {
    /// The model's index in the aggregator ([`Aggregator::model`]).
    pub model: usize,
    /// Start, nanoseconds since the Unix epoch.
    pub start_ns: i64,
    /// Duration, seconds.
    pub duration_s: f64,
    /// The error class of a failed attempt; `None` for a success.
    pub failure: Option<ErrorClass>,
    /// Input tokens, the cached ones included (`gen_ai.usage.input_tokens`).
    pub input_tokens: Option<u64>,
    /// Input tokens read from the provider's cache, when the record reports it (0 counts).
    pub cache_read: Option<u64>,
    /// Input tokens written to the provider's cache, when the record reports it (0 counts).
    pub cache_write: Option<u64>,
    /// Output tokens.
    pub output_tokens: Option<u64>,
}

impl LoggedAttempt {
    /// Why the attempt is impossible, if it is: a duration not in [0, 1 day], a token count
    /// above [`MAX_TOKENS`].
    pub fn impossible(&self) -> Option<String> {
        if !(self.duration_s.is_finite() && (0.0..=MAX_DURATION_S).contains(&self.duration_s)) {
            return Some("impossible duration (not between 0 and 86,400 s)".into());
        }
        let counts = [
            ("input", self.input_tokens),
            ("cache read", self.cache_read),
            ("cache write", self.cache_write),
            ("output", self.output_tokens),
        ];
        for (what, n) in counts {
            if n.is_some_and(|n| n > MAX_TOKENS) {
                return Some(format!("impossible {what} token count (above 100,000,000)"));
            }
        }
        None
    }
}

/// A link's attempts and failures within one chain.
#[derive(Debug, Clone, Default)]
pub struct LinkStats {
    /// Attempts.
    pub attempts: u64,
    /// Durations of failed attempts, seconds, per class in [`ErrorClass::ALL`] order (binned
    /// from the first: they are read by bin only), in one sparse list.
    failures: ClassHist,
}

impl LinkStats {
    /// A link of `attempts` attempts whose failures' durations, seconds, per class in
    /// [`ErrorClass::ALL`] order, are `failures`.
    pub fn new(attempts: u64, failures: &[LogHist; 6]) -> LinkStats {
        let mut l = LinkStats {
            attempts,
            failures: ClassHist::default(),
        };
        for (c, h) in failures.iter().enumerate() {
            for (b, k) in h.occupied() {
                l.failures.add_bin(c, b, k);
            }
        }
        l
    }

    /// Count one attempt.
    pub fn add(&mut self, failure: Option<ErrorClass>, duration_s: f64) {
        self.attempts += 1;
        if let Some(c) = failure {
            self.failures.add(class_index(c), duration_s);
        }
    }

    /// The failures' durations, seconds, per class in [`ErrorClass::ALL`] order.
    pub fn classes(&self) -> [LogHist; 6] {
        std::array::from_fn(|c| self.failures.class(c))
    }

    /// Add the attempts and failures of `other`.
    pub fn merge(&mut self, other: &LinkStats) {
        self.attempts += other.attempts;
        self.failures.merge(&other.failures);
    }

    /// Failed attempts.
    pub fn failed(&self) -> u64 {
        self.failures.total()
    }
}

/// The position of `c` in [`ErrorClass::ALL`].
pub fn class_index(c: ErrorClass) -> usize {
    ErrorClass::ALL.iter().position(|x| *x == c).unwrap_or(2)
}

/// What is measured of one model, over every chain it is on. The distributions written pooled
/// over the models (tokens, failure durations) are the [`Aggregator`]'s, not kept per model.
#[derive(Debug, Clone, Default)]
pub struct ModelStats {
    /// Attempts.
    pub attempts: u64,
    /// Successful attempts.
    pub successes: u64,
    /// Failed attempts per class, in [`ErrorClass::ALL`] order.
    pub class_failures: [u64; 6],
    /// Durations of successful attempts, seconds.
    pub latency: LogHist,
    /// Output tokens per successful attempt.
    pub output: Mean,
    /// The cache counts, for the prefix, the fresh input and the hit rate ([`CacheStats`]).
    pub cache: CacheStats,
}

impl ModelStats {
    /// Widen its latency and zero-read prompt bins to 2^shift of the 1.09% bins each.
    pub fn coarsen(&mut self, shift: u8) {
        self.latency.coarsen(shift);
        self.cache.zero_read.coarsen(shift);
    }

    /// Failed attempts.
    pub fn failed(&self) -> u64 {
        self.class_failures.iter().sum()
    }
}

/// How the requests that start on one primary went.
#[derive(Debug, Clone, Default)]
pub struct ChainStats {
    /// Requests.
    pub requests: u64,
    /// Per position in the chain: how often each model was tried there.
    pub reached: Vec<HashMap<usize, u64>>,
    /// Per position: requests answered there.
    pub answered: Vec<u64>,
    /// Requests with a known outcome (answered, or every attempt failed).
    pub with_outcome: u64,
    /// Whether failed requests are seen (whole traces); LiteLLM's rows only show the answered.
    pub sees_failures: bool,
    /// Per model: its attempts and failures in this chain's requests only.
    pub links: HashMap<usize, LinkStats>,
}

/// An unreadable record: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    /// The file as given.
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// The bounded buffer of requests whose spans may still arrive: the requests in the order
/// they opened (the oldest is closed first), and where each key's request is in it (72 bytes
/// a request in the ring, 16 in the index, and 24 an attempt past the first).
#[derive(Debug, Default)]
struct Open {
    /// Key → the request's sequence number (its place in `ring` is that minus `head`).
    index: HashMap<u64, u64>,
    ring: VecDeque<(u64, OpenRequest)>,
    /// The sequence number of the request at the front of `ring`.
    head: u64,
}

#[derive(Debug, Clone, Copy)]
struct OpenAttempt {
    start_ns: i64,
    duration_s: f64,
    model: u32,
    failure: Option<ErrorClass>,
}

#[derive(Debug)]
struct OpenRequest {
    /// The first attempt seen (most requests have one).
    first: OpenAttempt,
    /// The attempts seen after it.
    more: Vec<OpenAttempt>,
    session: Option<u64>,
}

/// The last [`RECENT_IDS`] record ids, to count a duplicate once.
#[derive(Debug, Default)]
struct Recent {
    set: HashSet<u64>,
    order: VecDeque<u64>,
}

impl Recent {
    /// Whether `id` was seen; remembers it.
    fn seen(&mut self, id: u64) -> bool {
        if !self.set.insert(id) {
            return true;
        }
        // The oldest leaves before the new one joins: the queue never holds more than
        // RECENT_IDS (its capacity is not doubled for one more).
        if self.order.len() >= RECENT_IDS
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        self.order.push_back(id);
        false
    }
}

/// The earliest and latest [`TRIM_MAX`] request starts.
#[derive(Debug, Default)]
pub struct Starts {
    /// Requests counted.
    pub n: u64,
    early: BinaryHeap<i64>,
    late: BinaryHeap<std::cmp::Reverse<i64>>,
}

impl Starts {
    fn add(&mut self, t: i64) {
        self.n += 1;
        self.early.push(t);
        if self.early.len() > TRIM_MAX {
            self.early.pop();
        }
        self.late.push(std::cmp::Reverse(t));
        if self.late.len() > TRIM_MAX {
            self.late.pop();
        }
    }

    /// The trimmed span: (m, the (m+1)-th earliest start, the (m+1)-th latest, ns), with m =
    /// min(1% of the starts, [`TRIM_MAX`]); `None` with fewer than 2 starts left between.
    pub fn trimmed(&self) -> Option<(u64, i64, i64)> {
        let m = (self.n / 100).min(TRIM_MAX as u64 - 1);
        if self.n < 2 * m + 2 {
            return None;
        }
        let mut early = self.early.clone().into_sorted_vec();
        early.truncate(TRIM_MAX);
        let mut late: Vec<i64> = self.late.iter().map(|r| r.0).collect();
        late.sort_unstable_by(|a, b| b.cmp(a));
        Some((m, *early.get(m as usize)?, *late.get(m as usize)?))
    }
}

/// A hash sample of the sessions: every session whose id hash has its low `shift` bits zero,
/// counted exactly; `shift` grows by one whenever more than [`SESSIONS_KEPT`] are kept.
#[derive(Debug, Default)]
pub struct Sessions {
    /// Requests per kept session.
    pub kept: HashMap<u64, u32>,
    /// One session in 2^shift is kept.
    pub shift: u32,
}

impl Sessions {
    fn add(&mut self, s: u64, weight: u64) {
        if s & ((1u64 << self.shift) - 1) != 0 {
            return;
        }
        let c = self.kept.entry(s).or_insert(0);
        *c = c.saturating_add(u32::try_from(weight).unwrap_or(u32::MAX));
        while self.kept.len() > SESSIONS_KEPT && self.shift < 63 {
            self.shift += 1;
            let mask = (1u64 << self.shift) - 1;
            self.kept.retain(|k, _| k & mask == 0);
        }
    }
}

/// Everything measured so far, over all files.
#[derive(Debug)]
pub struct Aggregator {
    /// Model ids in first-seen order.
    pub model_ids: Vec<String>,
    index: HashMap<String, usize>,
    /// Per model, by index.
    pub models: Vec<ModelStats>,
    /// Per primary model index.
    pub chains: HashMap<usize, ChainStats>,
    /// Requests (traces, request ids, LiteLLM first attempts).
    pub requests: u64,
    /// The earliest and latest request starts.
    pub starts: Starts,
    /// The sessions' request counts (a hash sample past [`SESSIONS_KEPT`]).
    pub sessions: Sessions,
    /// Requests that carried a session id.
    pub requests_with_session: u64,
    /// Records read.
    pub records: u64,
    /// Unreadable records: the first [`BAD_SHOWN`], and the count.
    pub bad: Vec<BadRecord>,
    /// Unreadable records in all (impossible ones included).
    pub bad_count: u64,
    /// Of them, records with an impossible value.
    pub impossible: u64,
    /// Duplicate records (a span, row or id seen before), counted once.
    pub duplicates: u64,
    /// The first duplicate: file and line.
    pub first_duplicate: Option<(String, u64)>,
    /// Fields that could not be read (a negative or non-numeric token count) and were dropped,
    /// their records kept: the count, and the first [`BAD_SHOWN`] by file and line.
    pub bad_fields: u64,
    /// The first dropped fields.
    pub bad_field_shown: Vec<BadRecord>,
    /// Spans of the file being read whose start looks like milliseconds or microseconds
    /// (left out as unreadable; most of a file so is refused), and the first one's line.
    pub unit_suspect: (u64, u64),
    /// Attempts whose model named no provider, given one inferred from its name
    /// ([`super::fields::infer_provider`]).
    pub provider_inferred: u64,
    /// Records whose `metadata` could not be parsed (read without it).
    pub bad_metadata: u64,
    /// The first of them: file and line.
    pub first_bad_metadata: Option<(String, u64)>,
    /// Attempts that failed with an error type no rule knows (counted as server errors).
    pub unclassified: u64,
    /// Records that name a model but are not one LLM call (an agent or tool span, an
    /// embedding, a response-cache hit), by what they are: left out, counted here.
    pub left_out: BTreeMap<&'static str, u64>,
    /// Sum and sum of squares of failure durations (seconds) per [`LogHist`] bin, over every
    /// model: the timeout is the exact mean of the cluster's bins.
    pub fail_sums: Vec<(f64, f64)>,
    /// Durations of failed attempts, seconds, per class, over every model (the timeout
    /// cluster), binned from the first.
    pub failures: [LogHist; 6],
    /// Input tokens (cached ones included) per successful attempt, over every model.
    pub input_hist: LogHist,
    /// Output tokens per successful attempt, over every model.
    pub output_hist: LogHist,
    /// The models' latency and zero-read prompt bins hold 2^bin_shift of the 1.09% bins each
    /// (0 until they pass [`BIN_BUDGET`]; the written scenario states the widening).
    pub bin_shift: u8,
    /// Successful attempts since the last check of [`BIN_BUDGET`].
    since_budget: u32,
    open: Open,
    recent: Recent,
    scratch: String,
}

impl Default for Aggregator {
    fn default() -> Aggregator {
        Aggregator {
            model_ids: Vec::new(),
            index: HashMap::new(),
            models: Vec::new(),
            chains: HashMap::new(),
            requests: 0,
            starts: Starts::default(),
            sessions: Sessions::default(),
            requests_with_session: 0,
            records: 0,
            bad: Vec::new(),
            bad_count: 0,
            impossible: 0,
            duplicates: 0,
            first_duplicate: None,
            bad_fields: 0,
            bad_field_shown: Vec::new(),
            unit_suspect: (0, 0),
            provider_inferred: 0,
            bad_metadata: 0,
            first_bad_metadata: None,
            unclassified: 0,
            left_out: BTreeMap::new(),
            fail_sums: Vec::new(),
            failures: std::array::from_fn(|_| LogHist::bins_only()),
            input_hist: LogHist::default(),
            output_hist: LogHist::default(),
            bin_shift: 0,
            since_budget: 0,
            open: Open::default(),
            recent: Recent::default(),
            scratch: String::new(),
        }
    }
}

impl Aggregator {
    /// The index of model `provider/model` (`model` alone when it already has a provider
    /// prefix or there is no provider), adding it on first sight.
    pub fn model(&mut self, provider: Option<&str>, model: &str) -> usize {
        self.scratch.clear();
        match provider {
            Some(p) if !p.is_empty() && !model.contains('/') => {
                self.scratch.push_str(p);
                self.scratch.push('/');
                self.scratch.push_str(model);
            }
            _ => self.scratch.push_str(model),
        }
        if let Some(&i) = self.index.get(self.scratch.as_str()) {
            return i;
        }
        let i = self.model_ids.len();
        self.model_ids.push(self.scratch.clone());
        self.index.insert(self.scratch.clone(), i);
        let mut stats = ModelStats::default();
        stats.coarsen(self.bin_shift);
        self.models.push(stats);
        i
    }

    /// Bytes the models' latency and zero-read prompt bins take.
    pub fn bin_bytes(&self) -> usize {
        self.models
            .iter()
            .map(|m| m.latency.bin_bytes() + m.cache.zero_read.bin_bytes())
            .sum()
    }

    /// Keep the models' bins within [`BIN_BUDGET`]: widen them all (twice as wide each time)
    /// until they fit, or are an octave wide ([`MAX_SHIFT`](super::stats::MAX_SHIFT)).
    pub fn keep_budget(&mut self) {
        while self.bin_shift < super::stats::MAX_SHIFT && self.bin_bytes() > BIN_BUDGET {
            self.bin_shift += 1;
            for m in &mut self.models {
                m.coarsen(self.bin_shift);
            }
        }
    }

    /// Record an unreadable record.
    pub fn bad(&mut self, file: &str, line: u64, message: impl Into<String>) {
        self.bad_count += 1;
        if self.bad.len() < BAD_SHOWN {
            self.bad.push(BadRecord {
                file: file.to_string(),
                line,
                message: message.into(),
            });
        }
    }

    /// A field of the record at `file`:`line` that cannot be read: dropped (read as absent),
    /// the record kept.
    pub fn bad_field(&mut self, file: &str, line: u64, message: impl Into<String>) {
        self.bad_fields += 1;
        if self.bad_field_shown.len() < BAD_SHOWN {
            self.bad_field_shown.push(BadRecord {
                file: file.to_string(),
                line,
                message: message.into(),
            });
        }
    }

    /// Report the token counts of one record that were negative or fractional and are read as
    /// absent (`dropped`: their names; nothing when empty).
    pub fn dropped_tokens(&mut self, file: &str, line: u64, dropped: &[&str]) {
        if !dropped.is_empty() {
            self.bad_field(
                file,
                line,
                format!(
                    "a negative or fractional token count ({}): the field is dropped",
                    dropped.join(", ")
                ),
            );
        }
    }

    /// Count a record left out as no LLM call (`what` it is instead).
    pub fn left_out(&mut self, what: &'static str) {
        *self.left_out.entry(what).or_insert(0) += 1;
    }

    /// The left-out records in one line (`12 invoke_agent, 3 embeddings`), or `None`.
    pub fn left_out_summary(&self) -> Option<String> {
        let total: u64 = self.left_out.values().sum();
        if total == 0 {
            return None;
        }
        let parts: Vec<String> = self
            .left_out
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        Some(format!(
            "{total} records that name a model are not LLM calls and are left out: {}",
            parts.join(", ")
        ))
    }

    /// Count a record whose `metadata` could not be parsed.
    pub fn bad_metadata(&mut self, file: &str, line: u64) {
        self.bad_metadata += 1;
        self.first_bad_metadata
            .get_or_insert_with(|| (file.to_string(), line));
    }

    /// Whether the record with id `id` was seen before (then it is counted as a duplicate).
    pub fn duplicate(&mut self, file: &str, line: u64, id: u64) -> bool {
        if self.recent.seen(id) {
            self.duplicates += 1;
            self.first_duplicate
                .get_or_insert_with(|| (file.to_string(), line));
            return true;
        }
        false
    }

    /// Take one attempt read at `file`:`line`: left out as unreadable when it is impossible
    /// ([`LoggedAttempt::impossible`]), or as a duplicate when its `id` was seen; else counted.
    /// Returns whether it was counted.
    pub fn accept(&mut self, file: &str, line: u64, a: &LoggedAttempt, id: Option<u64>) -> bool {
        if let Some(why) = a.impossible() {
            self.impossible += 1;
            self.bad(file, line, why);
            return false;
        }
        if let Some(id) = id
            && self.duplicate(file, line, id)
        {
            return false;
        }
        self.attempt(a);
        true
    }

    /// Count one attempt in its model's figures.
    pub fn attempt(&mut self, a: &LoggedAttempt) {
        self.records += 1;
        let m = &mut self.models[a.model];
        m.attempts += 1;
        match a.failure {
            Some(class) => {
                if self.fail_sums.is_empty() {
                    self.fail_sums = vec![(0.0, 0.0); super::stats::BINS];
                }
                let s = &mut self.fail_sums[LogHist::bin(a.duration_s)];
                s.0 += a.duration_s;
                s.1 += a.duration_s * a.duration_s;
                m.class_failures[class_index(class)] += 1;
                self.failures[class_index(class)].add(a.duration_s);
            }
            None => {
                self.since_budget += 1;
                if self.since_budget >= BUDGET_EVERY {
                    self.since_budget = 0;
                    self.keep_budget();
                }
                let m = &mut self.models[a.model];
                m.successes += 1;
                m.latency.add(a.duration_s);
                if let Some(input) = a.input_tokens {
                    self.input_hist.add(input as f64);
                    m.cache.add(input, a.cache_read, a.cache_write);
                }
                if let Some(out) = a.output_tokens {
                    m.output.add(out as f64);
                    self.output_hist.add(out as f64);
                }
            }
        }
    }

    /// Count one request: its start, its session.
    pub fn request(&mut self, start_ns: i64, session: Option<u64>, weight: u64) {
        self.requests += weight;
        for _ in 0..weight.min(2 * TRIM_MAX as u64 + 2) {
            self.starts.add(start_ns);
        }
        self.starts.n += weight.saturating_sub(2 * TRIM_MAX as u64 + 2);
        if let Some(s) = session {
            self.sessions.add(s, weight);
            self.requests_with_session += weight;
        }
    }

    /// Count the route of one request: the models tried at each position (`None` where a
    /// position's model is not known), and the position that answered (`None`: the request
    /// failed); `known = false` for a request whose outcome is not known.
    pub fn route(
        &mut self,
        path: &[Option<usize>],
        answered: Option<usize>,
        known: bool,
        weight: u64,
    ) {
        let Some(Some(primary)) = path.first().copied() else {
            return;
        };
        let c = self.chains.entry(primary).or_default();
        c.requests += weight;
        if c.reached.len() < path.len() {
            c.reached.resize_with(path.len(), HashMap::new);
            c.answered.resize(path.len(), 0);
        }
        for (k, m) in path.iter().enumerate() {
            if let Some(m) = m {
                *c.reached[k].entry(*m).or_insert(0) += weight;
            }
        }
        if known {
            c.with_outcome += weight;
            if let Some(k) = answered {
                c.answered[k] += weight;
            }
        }
    }

    /// Add an attempt to the open request `key` (a hashed trace or request id), to be closed
    /// when the buffer is full or the input ends ([`Aggregator::close_all`]).
    pub fn open_attempt(&mut self, key: u64, a: &LoggedAttempt, session: Option<u64>) {
        let attempt = OpenAttempt {
            start_ns: a.start_ns,
            duration_s: a.duration_s,
            model: a.model as u32,
            failure: a.failure,
        };
        if let Some(&seq) = self.open.index.get(&key) {
            let (_, r) = &mut self.open.ring[(seq - self.open.head) as usize];
            r.more.push(attempt);
            if r.session.is_none() {
                r.session = session;
            }
            return;
        }
        if self.open.ring.len() >= OPEN_REQUESTS
            && let Some((old, r)) = self.open.ring.pop_front()
        {
            self.open.head += 1;
            self.open.index.remove(&old);
            self.close(r);
        }
        let seq = self.open.head + self.open.ring.len() as u64;
        self.open.index.insert(key, seq);
        self.open.ring.push_back((
            key,
            OpenRequest {
                first: attempt,
                more: Vec::new(),
                session,
            },
        ));
    }

    /// Turn a closed trace into requests: its attempts in start order, a request ending at
    /// each success (a trace with several answered calls, an agent's, is several requests)
    /// or at the trace's end (a request that failed on every link). Retries on one model are
    /// one link. Each attempt is counted on its own request's chain.
    fn close(&mut self, r: OpenRequest) {
        if r.more.is_empty() {
            let answered = r.first.failure.is_none();
            self.finish_request(std::slice::from_ref(&r.first), r.session, answered);
            return;
        }
        let mut attempts = r.more;
        attempts.insert(0, r.first);
        attempts.sort_by_key(|a| a.start_ns);
        let mut from = 0;
        for i in 0..attempts.len() {
            if attempts[i].failure.is_none() {
                self.finish_request(&attempts[from..=i], r.session, true);
                from = i + 1;
            }
        }
        if from < attempts.len() {
            self.finish_request(&attempts[from..], r.session, false);
        }
    }

    fn finish_request(&mut self, attempts: &[OpenAttempt], session: Option<u64>, answered: bool) {
        let mut path: Vec<Option<usize>> = Vec::new();
        for a in attempts {
            let m = a.model as usize;
            if path.last() != Some(&Some(m)) {
                path.push(Some(m));
            }
        }
        self.request(attempts[0].start_ns, session, 1);
        self.route(&path, answered.then(|| path.len() - 1), true, 1);
        if let Some(Some(p)) = path.first()
            && let Some(c) = self.chains.get_mut(p)
        {
            c.sees_failures = true;
            for a in attempts {
                c.links
                    .entry(a.model as usize)
                    .or_default()
                    .add(a.failure, a.duration_s);
            }
        }
    }

    /// The input has ended (every file read): give back what only reading needs, the record
    /// ids kept to find duplicates and the spare room of the models' list.
    pub fn end_input(&mut self) {
        self.close_all();
        self.recent = Recent::default();
        self.models.shrink_to_fit();
    }

    /// Close every open request.
    pub fn close_all(&mut self) {
        let open = std::mem::take(&mut self.open);
        for (_, r) in open.ring {
            self.close(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn success(model: usize, duration_s: f64, input: u64) -> LoggedAttempt {
        LoggedAttempt {
            model,
            duration_s,
            input_tokens: Some(input),
            cache_read: Some(0),
            ..LoggedAttempt::default()
        }
    }

    /// A few busy models stay far below the budget: their bins are not widened.
    #[test]
    fn a_few_models_keep_the_fine_bins() {
        let mut agg = Aggregator::default();
        let ms: Vec<usize> = (0..3)
            .map(|i| agg.model(None, &format!("p/m{i}")))
            .collect();
        for i in 0..200_000u32 {
            let x = 1.0001f64.powi(i as i32 % 50_000);
            agg.attempt(&success(ms[i as usize % 3], 0.01 * x, (100.0 * x) as u64));
        }
        assert_eq!(agg.bin_shift, 0);
        assert!(agg.bin_bytes() < BIN_BUDGET / 10, "{}", agg.bin_bytes());
        assert_eq!(agg.models[0].latency.shift(), 0);
    }

    /// Past the budget every model's bins widen, counts are kept, and a model added later
    /// starts wide.
    #[test]
    fn many_models_share_the_budget() {
        let mut agg = Aggregator::default();
        let models = 3000;
        let ms: Vec<usize> = (0..models)
            .map(|i| agg.model(None, &format!("p/m{i}")))
            .collect();
        let mut k = 1.0f64;
        for i in 0..3_000_000usize {
            k = (k * 1.618_034) % 1.0 + 0.001;
            let x = (20.0 * k).exp2();
            agg.attempt(&success(ms[i % models], 1e-3 * x, x as u64 + 1));
        }
        agg.keep_budget();
        assert!(agg.bin_shift > 0);
        assert!(agg.bin_bytes() <= BIN_BUDGET, "{}", agg.bin_bytes());
        let n: u64 = agg.models.iter().map(|m| m.latency.n).sum();
        assert_eq!(n, 3_000_000);
        let late = agg.model(None, "p/late");
        assert_eq!(agg.models[late].latency.shift(), agg.bin_shift);
        assert_eq!(agg.models[late].cache.zero_read.shift(), agg.bin_shift);
    }
}
