//! The long history the years bench replays (issue 33 item 6), shared with the test that reads
//! it (`tests/it/long_history.rs`): made-up Statuspage pages as the API serves them, and what
//! each one holds (the incidents as written, to check a reader against).

use fallcost::sim::years::YEAR_S;

/// One incident as written: its start (`started_at`, else `created_at`), its `resolved_at`
/// (Unix seconds, to the second, as the page holds them) and its `impact`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Written {
    /// Its start, Unix seconds.
    pub start_s: f64,
    /// Its `resolved_at`, Unix seconds.
    pub end_s: f64,
    /// Its `impact`.
    pub impact: &'static str,
}

/// A deterministic uniform in [0, 1) (a 64-bit linear congruential generator's top 53 bits).
pub struct Lcg(pub u64);

impl Lcg {
    /// The next uniform.
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A made-up Statuspage `incidents.json` of `n` incidents over ten years from 2016-01-01, as
/// `curl https://status.…/api/v2/incidents.json` gives it: one line, newest first, each
/// incident with its updates and components. Arrivals are a Poisson process (each page its
/// own, so the two pages' incidents overlap at random offsets, as real pages' do, and some of
/// a page's own overlap); times to the second in RFC 3339 with milliseconds; durations 2
/// minutes to 8 hours, long-tailed; impacts 5% none, 25% minor, 60% major, 10% critical;
/// `started_at` on two thirds (else `created_at` is the start). The page's text, and its
/// incidents as written (in arrival order).
pub fn statuspage_json(name: &str, url: &str, n: usize, seed: u64) -> (String, Vec<Written>) {
    let mut rng = Lcg(seed);
    let t0 = 1_451_606_400.0; // 2016-01-01T00:00:00Z
    let period = 10.0 * YEAR_S;
    let mean_gap = period / n as f64;
    let time = |t: f64| {
        let s = fallcost::input::history::format_rfc3339(t.floor());
        s.replace('Z', ".000Z")
    };
    let components = ["API", "Console", "Chat app", "Batch API"];
    let mut t = t0;
    let mut incidents = Vec::with_capacity(n);
    let mut written = Vec::with_capacity(n);
    for k in 0..n {
        t += -mean_gap * (1.0 - rng.next()).ln();
        let duration = 120.0 * 240.0f64.powf(rng.next() * rng.next());
        let impact = match rng.next() {
            u if u < 0.05 => "none",
            u if u < 0.30 => "minor",
            u if u < 0.90 => "major",
            _ => "critical",
        };
        let posted = t + 60.0 + 600.0 * rng.next();
        let end = t + duration.max(posted - t + 60.0);
        let c = (rng.next() * 4.0) as usize;
        let mut inc = serde_json::json!({
            "id": format!("{name}{k:06}"),
            "name": format!("{} on the {}", if impact == "minor" { "Degraded performance" } else { "Elevated errors" }, components[c]),
            "status": "resolved",
            "impact": impact,
            "created_at": time(posted),
            "updated_at": time(end + 30.0),
            "monitoring_at": time(end - 0.25 * duration),
            "resolved_at": time(end),
            "shortlink": format!("https://stspg.io/{k:x}"),
            "page_id": name,
            "incident_updates": [
                {"status": "resolved", "body": "This incident has been resolved.", "created_at": time(end), "display_at": time(end)},
                {"status": "investigating", "body": format!("We are investigating elevated error rates on the {}.", components[c]), "created_at": time(posted), "display_at": time(posted)}
            ],
            "components": [{"id": format!("c{c}"), "name": components[c], "status": "operational"}]
        });
        let start_s = if rng.next() < 2.0 / 3.0 {
            inc["started_at"] = serde_json::Value::String(time(t));
            t.floor()
        } else {
            posted.floor()
        };
        written.push(Written {
            start_s,
            end_s: end.floor(),
            impact,
        });
        incidents.push(inc);
    }
    incidents.reverse();
    // The page is generated after its latest update: the Poisson arrivals run a few weeks past
    // the ten years (the n-th arrival's spread, about √n mean gaps), and a page cannot list an
    // incident updated after the page itself (the reader ends a file's period at the later of
    // the two, so this changes no figure; issue 33 item 6).
    let latest = written
        .iter()
        .map(|w| w.end_s + 30.0)
        .fold(t0 + period, f64::max);
    let text = serde_json::json!({
        "page": {"id": name, "name": name, "url": url, "time_zone": "Etc/UTC", "updated_at": time(latest)},
        "incidents": incidents
    })
    .to_string();
    (text, written)
}

/// The two pages (`n` incidents in all, half each: Anthropic's and OpenAI's, seeds 1 and 2):
/// per page its file name, text and incidents as written.
pub fn pages(n: usize) -> Vec<(&'static str, String, Vec<Written>)> {
    [
        (
            "anthropic.json",
            "Anthropic",
            "https://status.anthropic.com",
            1,
        ),
        ("openai.json", "OpenAI", "https://status.openai.com", 2),
    ]
    .into_iter()
    .map(|(file, name, url, seed)| {
        let (text, written) = statuspage_json(name, url, n / 2, seed);
        (file, text, written)
    })
    .collect()
}

/// Write the two [`pages`] (`n` incidents in all) to `dir`; their paths.
pub fn write_pages(dir: &std::path::Path, n: usize) -> Vec<std::path::PathBuf> {
    std::fs::create_dir_all(dir).expect("the pages' directory");
    pages(n)
        .into_iter()
        .map(|(file, text, _)| {
            let path = dir.join(file);
            std::fs::write(&path, text).expect("writes");
            path
        })
        .collect()
}
