//! The `fallcost tune` document ([`Tune`]) in every format: a table (terminal or Markdown) per
//! chain with its frontier, then the recommendation, the saving against the shipped settings,
//! the confirmation and the gateway snippets; CSV (one row per frontier point, plus the
//! shipped point); JSON (the [`Tune`] as serialised, schema `schemas/tune.schema.json`).

use super::csv;
use crate::number::{Digits, percent};

/// A number as the CSV writes it.
fn num(x: f64) -> String {
    csv::num(Some(x))
}
use super::layout::{Page, Section};
use super::table::VERBATIM;
use super::{Format, table};
use crate::number::{group, money};
use crate::tune::{ChainTune, Point, Tune};

/// `tune` in `format`, as written to standard output or `--output`.
///
/// Errors: JSON or CSV serialisation (not expected).
pub fn render(tune: &Tune, format: Format) -> super::OutputResult<Vec<u8>> {
    Ok(match format {
        Format::Table => table::render(&layout(tune), table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&layout(tune), table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(tune)?,
        Format::Csv => to_csv(tune)?,
    })
}

/// A point's settings for a table cell, short: `timeout=10s retries=0 breaker=5/60s
/// hedge=none warm=always` (the chain's models are their own column).
fn settings(p: &Point) -> String {
    if p.set.is_empty() {
        return "(as shipped)".into();
    }
    let value = |key: &str| {
        p.set
            .iter()
            .find_map(|s| s.strip_prefix(key)?.strip_prefix('='))
    };
    let mut out = Vec::new();
    let mut breaker_done = false;
    for s in &p.set {
        let (k, v) = s.split_once('=').unwrap_or((s, ""));
        let item = match k {
            "policy.timeout_s" => format!("timeout={v}s"),
            "policy.hedge_delay_s" if v == "none" => "hedge=none".into(),
            "policy.hedge_delay_s" => format!("hedge={v}s"),
            "policy.backoff.base_s" => format!("backoff={v}s"),
            "policy.warm_fallback" => format!("warm={v}"),
            "policy.warm_fallback.after" => format!("warm=after {v}"),
            "policy.breaker" => "breaker=none".into(),
            "policy.breaker.threshold" | "policy.breaker.cooldown_s" => {
                if breaker_done {
                    continue;
                }
                breaker_done = true;
                format!(
                    "breaker={}/{}s",
                    value("policy.breaker.threshold").unwrap_or("?"),
                    value("policy.breaker.cooldown_s").unwrap_or("?")
                )
            }
            _ if k.starts_with("chain.") && k.ends_with(".models") => continue,
            _ => s.strip_prefix("policy.").unwrap_or(s).to_string(),
        };
        out.push(item);
    }
    out.join(" ")
}

fn seconds(s: f64) -> String {
    if s.is_finite() {
        format!("{s:.2}")
    } else {
        "–".into()
    }
}

/// The table: a preamble, then one section per chain.
pub fn layout(tune: &Tune) -> Page {
    let mut preamble = vec![format!("{}: tune", tune.scenario)];
    let u = &tune.usage;
    let incidents = if u.history.is_empty() {
        format!("the reference incident {} a year", u.incidents_per_year)
    } else {
        format!(
            "the history's incidents per year ({})",
            u.history.join(", ")
        )
    };
    preamble.push(format!(
        "Year: {} requests/month ({}); {incidents}. Cost = steady $/1k + the incidents' premium over their requests' steady bill, per 1,000 requests of the year.",
        group(&format!("{:.0}", u.requests_per_month)),
        u.source,
    ));
    if tune.goals.availability.is_none() {
        preamble.push(
            "Without --availability a point must answer at least the shipped settings' share"
                .into(),
        );
    }
    preamble.push(format!(
        "p99: steady-state Monte Carlo, {} requests, seed {}, the same for every candidate (common random numbers; a breaker, which the steady simulation does not see, left out, so a candidate with one is timed on the draws of the same settings without it); screened on its first {} (4.5-standard-error bounds), exact for every candidate kept",
        group(&crate::tune::P99_REQUESTS.to_string()),
        crate::tune::P99_SEED,
        group(&crate::tune::screen::P99_SCREEN_REQUESTS.to_string())
    ));
    preamble.push(format!("Ties: {}", crate::tune::frontier::TIE_RULE));
    if let Some(p) = &tune.partial {
        preamble.insert(1, format!("PARTIAL: {p}"));
    }
    Page {
        preamble,
        sections: tune.chains.iter().map(section).collect(),
    }
}

/// The constraints as a line.
fn goals_text(g: &crate::tune::Goals) -> String {
    let mut goals = Vec::new();
    if let Some(a) = g.availability {
        goals.push(format!(
            "answered >= {}",
            percent(a, Digits::AtMost(4), false)
        ));
    }
    if let Some(t) = g.p99_s {
        goals.push(format!("p99 <= {t} s"));
    }
    if let Some(m) = g.max_ratio {
        goals.push(format!("max-ratio <= {m}x"));
    }
    if let Some(b) = g.budget_usd_month {
        goals.push(format!("budget <= ${b}/month"));
    }
    if goals.is_empty() {
        "constraints: none (the recommendation is the cheapest point)".into()
    } else {
        format!("constraints: {}", goals.join(", "))
    }
}

fn section(c: &ChainTune) -> Section {
    let chains_vary = c
        .frontier
        .iter()
        .chain(c.shipped.as_ref())
        .any(|p| Some(&p.models) != c.shipped.as_ref().map(|s| &s.models));
    let mut header: Vec<String> = [
        "#",
        "pattern",
        "models",
        "settings",
        "$/1k req",
        "incident $/1k",
        "$/month",
        "answered",
        "p99 s",
        "meets",
    ]
    .map(String::from)
    .to_vec();
    let mut numeric = vec![
        true, false, false, false, true, true, true, true, true, false,
    ];
    if !chains_vary {
        header.remove(2);
        numeric.remove(2);
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    if let Some(s) = &c.shipped {
        rows.push(point_row("shipped".into(), s, chains_vary));
    }
    for (i, p) in c.frontier.iter().enumerate() {
        let tag = if c.recommended.as_ref() == Some(p) {
            format!("{} *", i + 1)
        } else {
            (i + 1).to_string()
        };
        rows.push(point_row(tag, p, chains_vary));
    }
    Section {
        heading: Some(format!("Chain {}", c.chain)),
        title: "Pareto frontier: cost against availability and p99 (cheapest first; * recommended)"
            .into(),
        notes: section_notes(c),
        header,
        numeric,
        rows,
        footer: footer(c),
    }
}

/// A point's row, tagged `tag` (`shipped`, its rank); the models' column only when the
/// chains vary (`chains_vary`).
fn point_row(tag: String, p: &Point, chains_vary: bool) -> Vec<String> {
    let mut cells = vec![
        tag,
        p.pattern.as_str().to_string(),
        p.models.join(" → "),
        settings(p),
        money(p.cost_per_1k_usd),
        money(p.incident_premium_per_1k_usd),
        money(p.monthly_usd),
        percent(p.availability, Digits::AtMost(4), false),
        seconds(p.raw.p99_s),
        if p.feasible {
            "yes".into()
        } else {
            p.violations.join("; ")
        },
    ];
    if !chains_vary {
        cells.remove(2);
    }
    cells
}

/// The section's notes: the constraints, the shipped chain, how many points were tried and
/// how, the inert breakers, the simulated incidents, what was held.
fn section_notes(c: &ChainTune) -> Vec<String> {
    let mut notes = vec![format!(
        "{} combinations{}, {} candidates with their patterns; {} screened on the breaker's quick simulation, {} of them recomputed as compare prints them; {} kept by the p99 screen and timed on the whole Monte Carlo",
        group(&c.combinations.to_string()),
        if c.priced < c.combinations {
            format!(
                " ({} priced within --budget-s)",
                group(&c.priced.to_string())
            )
        } else {
            String::new()
        },
        group(&c.candidates.to_string()),
        group(&c.screened.to_string()),
        group(&c.recomputed.to_string()),
        group(&c.p99_exact.to_string())
    )];
    if c.inert_breakers > 0 {
        notes.push(format!(
            "{} candidates with a circuit breaker that refuses only attempts failing fast and billing nothing: it changes no bill and no failure, so their incident is the analytic engine's without it, as compare prints it (docs/MODEL.md §8)",
            group(&c.inert_breakers.to_string())
        ));
    }
    if c.frontier.iter().any(|p| {
        p.raw
            .incident
            .as_ref()
            .is_some_and(|i| i.method == "simulated")
    }) {
        notes.push(
            "incident figures with a breaker, a rate-limited link ([capacity]), or retries where a session's cache can expire between its requests, are simulated (fixed seed), as compare prints them"
                .into(),
        );
    }
    for h in &c.held {
        notes.push(format!("held: {h}"));
    }
    if let Some(s) = &c.shipped {
        notes.insert(0, format!("shipped chain: {}", s.models.join(" → ")));
    }
    notes.insert(0, goals_text(&c.goals));
    notes
}

/// The recommendation, the saving, the confirmation, the snippets; or why nothing fits.
fn footer(c: &ChainTune) -> Vec<String> {
    let unpriced = c.priced == 0 && c.combinations > 0;
    let mut f = match &c.recommended {
        Some(r) => recommended_lines(c, r),
        // the budget ran out on an earlier chain: nothing here was weighed against the goals
        None if unpriced => vec![
            "No point priced within --budget-s: the budget ran out before this chain's search began; raise --budget-s, or tune this chain alone with --chain NAME."
                .into(),
        ],
        None => vec!["No point meets every constraint.".into()],
    };
    if let (Some(u), Some(k)) = (&c.runner_up, &c.confirmation) {
        f.push(format!(
            "Runner-up: {} {}: ${}/1k. Monte Carlo, {} paired batches (common random numbers): the recommendation saves {} per 1k, 95% CI [{}, {}]: {}",
            u.pattern.as_str(),
            settings(u),
            money(u.cost_per_1k_usd),
            k.batches,
            signed(k.saving_per_1k_usd),
            signed(k.ci95[0]),
            signed(k.ci95[1]),
            if k.beyond_noise {
                "beyond noise"
            } else {
                "within noise (the two are as good)"
            }
        ));
    }
    if let Some(why) = c.infeasible.as_ref().filter(|_| !unpriced) {
        for b in &why.constraints {
            f.push(format!(
                "{}: limit {}, best reached {}{}",
                b.name,
                show_limit(b.name, b.limit),
                show_limit(b.name, b.best),
                if b.binds { " (binds)" } else { "" }
            ));
        }
        if let Some(p) = &why.closest {
            f.push(format!(
                "Closest: {} {}: {}",
                p.pattern.as_str(),
                settings(p),
                p.violations.join("; ")
            ));
        }
    }
    if let Some(g) = &c.gateway {
        f.push("LiteLLM (config.yaml):".into());
        f.extend(g.litellm_yaml.lines().map(|l| format!("{VERBATIM}  {l}")));
        f.push("Portkey config:".into());
        f.push(format!("{VERBATIM}  {}", g.portkey));
        for u in &g.unmapped {
            f.push(format!("Not mapped: {u}"));
        }
    }
    f
}

/// The footer's lines on the recommended point `r`: it, against the shipped settings, why,
/// what its breaker buys, and the command lines that reproduce it.
fn recommended_lines(c: &ChainTune, r: &Point) -> Vec<String> {
    let mut f = vec![format!(
        "Recommended: {} on {}, {}: ${}/1k requests, {} answered, p99 {} s",
        r.pattern.as_str(),
        r.models.join(" → "),
        settings(r),
        money(r.cost_per_1k_usd),
        percent(r.availability, Digits::AtMost(4), false),
        seconds(r.raw.p99_s)
    )];
    if let Some(s) = &c.shipped {
        let saved = s.cost_per_1k_usd - r.cost_per_1k_usd;
        // a recommendation that costs more (one that meets a constraint the shipped settings
        // miss) says so, not "saves" a negative amount
        let (verb, sign) = if saved < 0.0 {
            ("costs", -1.0)
        } else {
            ("saves", 1.0)
        };
        let more = if saved < 0.0 { " more" } else { "" };
        f.push(format!(
            "Against the shipped settings ({}): {verb} ${}/1k requests{more}, ${}/month{more}; answered {} → {}",
            s.pattern.as_str(),
            money(sign * saved),
            money(sign * (s.monthly_usd - r.monthly_usd)),
            percent(s.availability, Digits::AtMost(4), false),
            percent(r.availability, Digits::AtMost(4), false)
        ));
    }
    if let Some(why) = &c.reason {
        f.push(format!("Why: {why}"));
    }
    if let Some(b) = &c.breaker_buys {
        f.push(breaker_line(b));
    }
    if let Some(q) = &c.quota_refusals {
        f.push(quota_line(q));
    }
    if let Some(line) = &c.reproduce {
        f.push("Reproduce (one line, to paste into a shell):".into());
        f.push(format!("{VERBATIM}  {line}"));
    }
    if let Some(line) = &c.reproduce_p99 {
        f.push(
            "Its p99 (the same without the breaker, which the steady simulation does not see; the line above draws the breaker's chain on the generic simulator):"
                .into(),
        );
        f.push(format!("{VERBATIM}  {line}"));
    }
    f
}

/// What the shipped chain's and the recommendation's quotas refuse in the reference
/// incident, as one line.
fn quota_line(q: &crate::tune::QuotaRefusals) -> String {
    let side = |links: &[crate::report::RateLimited]| {
        let parts: Vec<String> = links
            .iter()
            .filter_map(crate::output::layout::refused_text)
            .collect();
        if parts.is_empty() {
            "no rate-limited link".to_string()
        } else {
            parts.join("; ")
        }
    };
    format!(
        "Rate limits in the reference incident (simulated, as compare prints them; a refused attempt is a 429, billed 0, and fails the request where no later link answers): shipped: {}; recommended: {}",
        side(&q.shipped),
        side(&q.recommended)
    )
}

/// What a recommended breaker buys in the reference incident, as one line.
fn breaker_line(b: &crate::tune::BreakerBuys) -> String {
    let (w, o) = (&b.with, &b.without);
    let mut parts = vec![
        format!(
            "dead time {} → {} s per request",
            seconds3(o.dead_time_mean_s),
            seconds3(w.dead_time_mean_s)
        ),
        format!(
            "failed attempts {} → {}",
            group(&format!("{:.0}", o.failed_attempts)),
            group(&format!("{:.0}", w.failed_attempts))
        ),
    ];
    if let Some(d) = w.dead_provider_attempts {
        parts.push(format!(
            "attempts on the dead provider {}",
            group(&format!("{d:.0}"))
        ));
    }
    if let Some(c) = w.counts_precision {
        parts.push(format!(
            "the simulated dead time, attempts and failed requests within ±{} (4.5 standard errors)",
            crate::number::percent(c, crate::number::Digits::Significant(2), false)
        ));
    }
    if let Some(p) = w.probes {
        parts.push(format!("{} half-open probes", group(&format!("{p:.0}"))));
    }
    parts.push(format!(
        "window ${} → ${}, failed requests {} → {}",
        money(o.total_usd),
        money(w.total_usd),
        trim(o.failed_requests),
        trim(w.failed_requests)
    ));
    format!(
        "What the breaker buys in the reference incident (without → with; {} without, {} with, as compare computes them): {}",
        o.method,
        w.method,
        parts.join("; ")
    )
}

fn seconds3(s: f64) -> String {
    let t = format!("{s:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn trim(x: f64) -> String {
    let t = format!("{x:.1}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn signed(x: f64) -> String {
    if x < 0.0 {
        format!("-${}", money(-x))
    } else {
        format!("${}", money(x))
    }
}

fn show_limit(name: &str, v: f64) -> String {
    match name {
        "availability" => percent(v, Digits::AtMost(4), false),
        "p99" => format!("{v:.2} s"),
        "max-ratio" => format!("{v:.2}x"),
        _ => format!("${}/month", money(v)),
    }
}

/// The CSV: the shipped point and every frontier point of every chain.
fn to_csv(tune: &Tune) -> super::OutputResult<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record([
        "chain",
        "rank",
        "recommended",
        "pattern",
        "models",
        "set",
        "cost_per_1k_usd",
        "steady_cost_per_1k_usd",
        "incident_premium_per_1k_usd",
        "monthly_usd",
        "availability",
        "steady_availability",
        "incident_availability",
        "p99_s",
        "dead_time_mean_s",
        "max_ratio",
        "incident_total_usd",
        "incident_method",
        "feasible",
        "violations",
    ])?;
    for c in &tune.chains {
        let shipped = c.shipped.iter().map(|p| ("shipped".to_string(), p));
        let front = c
            .frontier
            .iter()
            .enumerate()
            .map(|(i, p)| ((i + 1).to_string(), p));
        for (rank, p) in shipped.chain(front) {
            let inc = p.raw.incident.as_ref();
            w.write_record([
                c.chain.clone(),
                rank,
                (c.recommended.as_ref() == Some(p)).to_string(),
                p.pattern.as_str().to_string(),
                p.models.join(";"),
                p.set.join(" "),
                num(p.cost_per_1k_usd),
                num(p.raw.steady_cost_per_1k_usd),
                num(p.incident_premium_per_1k_usd),
                num(p.monthly_usd),
                num(p.availability),
                num(p.steady_availability),
                p.incident_availability.map(num).unwrap_or_default(),
                num(p.raw.p99_s),
                num(p.raw.dead_time_mean_s),
                num(p.raw.max_ratio),
                inc.map(|i| num(i.total_usd)).unwrap_or_default(),
                inc.map(|i| i.method.to_string()).unwrap_or_default(),
                p.feasible.to_string(),
                p.violations.join("; "),
            ])?;
        }
    }
    Ok(w.into_inner()?)
}
