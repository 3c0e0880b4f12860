//! Unit tests of scenario resolution.

use super::*;
use crate::input::pricing::bundled;
use crate::model::ServiceTier;

fn load_str(text: &str) -> Result<Scenario, InputError> {
    let doc = Document::parse("s.toml", text)?;
    let file: ScenarioFile = doc.deserialize()?;
    resolve(&doc, file, &bundled("2026-07").unwrap(), "s".into())
}

fn failure_rates(c: &crate::model::Chain) -> Vec<f64> {
    c.links.iter().map(|l| l.failure_rate).collect()
}

fn trip_rates(c: &crate::model::Chain) -> Vec<f64> {
    c.links.iter().map(|l| l.trip_rate).collect()
}

const HEAD: &str = "[request]\noutput_tokens = 500\ninput_tokens = 2000\n";

#[test]
fn chain_overrides_win_over_the_scenario_and_lists_over_scalars() {
    let text = format!(
        "{HEAD}[steady]\nfailure_rate = 0.1\ntimeout_trip_rate = 0.05\n\
         [[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n\
         [[chain]]\nname = \"b\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n\
         steady = {{ failure_rates = [0.2, 0.0], gray_fraction = 0.5 }}\n"
    );
    let s = load_str(&text).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.1, 0.1]);
    assert_eq!(trip_rates(&s.chains[0]), vec![0.05, 0.0]);
    assert_eq!(failure_rates(&s.chains[1]), vec![0.2, 0.0]);
    assert_eq!(s.chains[1].steady.gray_fraction, 0.5);
    assert_eq!(trip_rates(&s.chains[1]), vec![0.05, 0.0]);
    assert_eq!(s.request.cache_hit_rate, 1.0);
}

#[test]
fn unknown_model_is_an_error_at_its_line_with_a_suggestion() {
    let text = format!(
        "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"openai/gpt-6-astro\"]\n"
    );
    let e = load_str(&text).unwrap_err();
    assert_eq!(e.kind, InputErrorKind::UnknownModel);
    assert_eq!(e.field.as_deref(), Some("chain[0].models[1]"));
    assert_eq!(e.location.unwrap().line, 6);
    assert!(
        e.message.contains("did you mean `openai/gpt-6-astra`"),
        "{e}"
    );
}

#[test]
fn out_of_range_values_name_their_field() {
    let cases = [
        ("[steady]\nfailure_rate = 1.5\n", "steady.failure_rate"),
        ("[steady]\nfailure_rates = [0.1]\n", "steady.failure_rates"),
        ("[steady]\ngray_fraction = nan\n", "steady.gray_fraction"),
        (
            "[incident]\nduration = \"3\"\nrequests_per_second = 1\nsession_length = 2\n",
            "incident.duration",
        ),
        (
            "[incident]\nduration = \"3h\"\nrequests_per_second = 0\nsession_length = 2\n",
            "incident.requests_per_second",
        ),
        (
            "[incident]\nduration = \"3h\"\nrequests_per_second = 1\nsession_length = 0\n",
            "incident.session_length",
        ),
    ];
    for (extra, field) in cases {
        let text = format!(
            "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"openai/gpt-6-luna\"]\n{extra}"
        );
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{e}");
        assert!(e.location.is_some(), "{e}");
    }
}

#[test]
fn duplicate_chain_names_are_refused() {
    let text = format!(
        "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n"
    );
    let e = load_str(&text).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("chain[1].name"));
    assert!(e.message.contains("duplicate"));
}

const TWO: &str =
    "[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"anthropic/claude-sonnet-5\"]\n";

/// A given latency model derives the trip rates (P(L > T)) and w; defaults derive nothing.
#[test]
fn latency_entries_derive_trips_and_the_win_share() {
    let text = format!(
        "{HEAD}{TWO}policy = {{ timeout_s = 12 }}\n\
         [latency.\"openai/gpt-6-sol\"]\np50_s = 2.0\np99_s = 12.0\n\
         [latency.\"anthropic/claude-sonnet-5\"]\np50_s = 2.0\np99_s = 12.0\n"
    );
    let s = load_str(&text).unwrap();
    let c = &s.chains[0];
    assert_eq!(c.policy.timeout_s, 12.0);
    assert!((c.links[0].trip_rate - 0.01).abs() < 1e-12);
    assert!((c.links[1].trip_rate - 0.01).abs() < 1e-12);
    assert_eq!(
        c.links
            .iter()
            .map(|l| l.trip_from_latency)
            .collect::<Vec<_>>(),
        vec![true, true]
    );
    assert!(c.steady.win_from_latency);
    assert!((c.steady.primary_win_rate - 0.5).abs() < 1e-9);

    // Given trip rates and w win over the latency model.
    let text = format!(
        "{HEAD}{TWO}[steady]\ntimeout_trip_rate = 0.05\nprimary_win_rate = 0.9\n\
         [latency.\"openai/gpt-6-sol\"]\np50_s = 2.0\np99_s = 12.0\n\
         [latency.\"anthropic/claude-sonnet-5\"]\np50_s = 2.0\np99_s = 12.0\n"
    );
    let c = &load_str(&text).unwrap().chains[0];
    assert_eq!(trip_rates(c), vec![0.05, 0.0]);
    assert_eq!(c.steady.primary_win_rate, 0.9);
    assert!(!c.steady.win_from_latency);

    // No [latency]: the worked examples' trips (0) and w (1) are kept, default timing.
    let c = &load_str(&format!("{HEAD}{TWO}")).unwrap().chains[0];
    assert_eq!(trip_rates(c), vec![0.0, 0.0]);
    assert_eq!(c.steady.primary_win_rate, 1.0);
    assert_eq!(c.policy.timeout_s, 30.0);
    assert!(!c.links[0].latency.given);
}

#[test]
fn bad_latency_and_policy_values_name_their_field() {
    let cases = [
        (
            "[latency.\"openai/gpt-6-sol\"]\np50_s = 0\np99_s = 1\n",
            "latency.\"openai/gpt-6-sol\".p50_s",
            8,
        ),
        (
            "[latency.\"openai/gpt-6-sol\"]\np50_s = 2\np99_s = 1\n",
            "latency.\"openai/gpt-6-sol\".p99_s",
            9,
        ),
        (
            "[latency.\"openai/gpt-6-sol\"]\np50_s = 2\np99_s = 3\np90_s = 1\n",
            "latency.\"openai/gpt-6-sol\".p90_s",
            10,
        ),
        (
            "[latency.\"openai/gpt-6-solo\"]\np50_s = 2\np99_s = 3\n",
            "latency.\"openai/gpt-6-solo\"",
            7,
        ),
        ("[policy]\ntimeout_s = -1\n", "policy.timeout_s", 8),
        ("[policy]\nretris = 2\n", "policy.retris", 8),
        (
            "[policy]\nfailover_on = [\"timeout\", \"quota\"]\n",
            "policy.failover_on[1]",
            8,
        ),
        ("[policy]\nmax_attempts = 0\n", "policy.max_attempts", 8),
        (
            "[policy]\nmax_multiplier = -1\n",
            "policy.max_multiplier",
            8,
        ),
        (
            "[policy]\nbreaker = { threshold = 0, cooldown_s = 5 }\n",
            "policy.breaker",
            8,
        ),
        (
            "[policy]\nwarm_fallback = \"sometimes\"\n",
            "policy.warm_fallback",
            8,
        ),
        (
            "[steady]\nerrors = { rate_limit = 0.5 }\n",
            "steady.errors",
            8,
        ),
        ("[steady]\nfast_fail_s = -1\n", "steady.fast_fail_s", 8),
    ];
    for (extra, field, line) in cases {
        let text = format!("{HEAD}{TWO}{extra}");
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{e}");
        assert_eq!(e.location.map(|l| l.line), Some(line), "{e}");
    }
}

/// `retries_by_class`: a class left out gets `retries`; a class that is never retried, or
/// not a class, is an error at its line naming the allowed classes.
#[test]
fn retries_by_class_fills_from_retries_and_is_strict() {
    let text = format!(
        "{HEAD}{TWO}[policy]\nretries = 1\nretries_by_class = {{ timeout = 0, rate_limit = 4 }}\n"
    );
    let s = load_str(&text).unwrap();
    use crate::model::policy::ErrorClass as E;
    let p = &s.chains[0].policy;
    assert_eq!(
        E::ALL.map(|c| p.retries_for(c)),
        [4, 1, 1, 0, 1, 1],
        "rate_limit, overload, server_error, timeout, client, quota"
    );
    for bad in ["client = 1", "ratelimit = 2"] {
        let text = format!("{HEAD}{TWO}[policy]\nretries_by_class = {{ {bad} }}\n");
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.location.map(|l| l.line), Some(8), "{e}");
        let msg = e.to_string();
        for allowed in ["rate_limit", "overload", "server_error", "timeout"] {
            assert!(msg.contains(allowed), "{msg}");
        }
    }
}

/// Sonnet 5 → Sol and Sonnet 5 → Sol → Grok with a 3h6m window at 1 req/s, sessions of 20.
const SEPT3_HEAD: &str = "[request]\noutput_tokens = 1200\nprefix_tokens = 60000\n\
     [[chain]]\nname = \"two\"\nmodels = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]\n\
     [[chain]]\nname = \"three\"\nmodels = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\", \"xai/grok-4.7\"]\n\
     [incident]\nduration = \"3h6m\"\nrequests_per_second = 1\nsession_length = 20\n";

#[test]
fn no_outage_keeps_the_shorthand() {
    let s = load_str(SEPT3_HEAD).unwrap();
    let i = s.incident.unwrap();
    assert_eq!(i.timeline, None);
    assert_eq!(i.duration_s, 11_160.0);
}

#[test]
fn outages_build_the_timeline_with_their_defaults() {
    use crate::model::timeline::{LinkRef, OutageFailure as F, OutageTarget, piecewise};
    // `[incident] failure = "gray"` is the default of the outages that give none.
    let text = format!(
        "{SEPT3_HEAD}failure = \"gray\"\n\
         [[incident.outage]]\nprovider = \"anthropic\"\n\
         [[incident.outage]]\nprovider = \"openai\"\nstart = \"1h\"\nduration = \"34m\"\nfailure = \"fast\"\n\
         [[incident.outage]]\nmodel = \"xai/grok-4.7\"\nstart = \"1h20m\"\nduration = \"1h\"\nerror_rate = 0.5\nlatency_factor = 2\n"
    );
    let s = load_str(&text).unwrap();
    let t = s.incident.as_ref().unwrap().timeline.clone().unwrap();
    assert_eq!(t.window_s(), 11_160.0);
    let o = t.outages();
    assert_eq!(o.len(), 3);
    assert_eq!(o[0].target, OutageTarget::Provider("anthropic".into()));
    assert_eq!(
        (o[0].start_s, o[0].duration_s, o[0].failure, o[0].error_rate),
        (0.0, None, F::Gray, 1.0)
    );
    assert_eq!(
        (o[1].start_s, o[1].duration_s, o[1].failure),
        (3_600.0, Some(2_040.0), F::Fast)
    );
    assert_eq!(o[2].target, OutageTarget::Model("xai/grok-4.7".into()));
    assert_eq!(
        (o[2].start_s, o[2].duration_s, o[2].failure, o[2].error_rate),
        (4_800.0, Some(3_600.0), F::Gray, 0.5)
    );
    assert_eq!(o[2].latency_factor, Some(2.0));
    // The hand-computed Sept 3 figure (docs/timeline-notes.md): Sonnet → Sol fails the 2,040
    // requests of OpenAI's 34 minutes at 1 req/s.
    let links: Vec<LinkRef> = ["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]
        .iter()
        .map(|m| LinkRef::of(m))
        .collect();
    assert_eq!(piecewise(&t, &links, 1.0).failed, 2_040.0);
    // A zero start is allowed written with any unit.
    for zero in ["0s", "0m", "0.0h"] {
        let text =
            format!("{SEPT3_HEAD}[[incident.outage]]\nprovider = \"openai\"\nstart = \"{zero}\"\n");
        let s = load_str(&text).unwrap();
        assert_eq!(
            s.incident.unwrap().timeline.unwrap().outages()[0].start_s,
            0.0
        );
    }
}

/// Bad outages: the text after `[[incident.outage]]`, the field and line the error names (SEPT3_HEAD
/// has 13 lines: the first outage's table header is line 14), a part of its message.
const BAD_OUTAGES: &[(&str, &str, usize, &str)] = &[
    (
        "provider = \"anthropic\"\nmodel = \"openai/gpt-6-sol\"\n",
        "incident.outage[0].model",
        16,
        "not both",
    ),
    (
        "start = \"1h\"\n",
        "incident.outage[0]",
        14,
        "needs `provider` (every model of it) or `model` (one model); the chains use the providers anthropic, openai, xai",
    ),
    (
        "provider = \"antropic\"\n",
        "incident.outage[0].provider",
        15,
        "no chain uses provider `antropic` (did you mean `anthropic`?); the chains use: anthropic, openai, xai",
    ),
    (
        "model = \"openai/gpt-6-astra\"\n",
        "incident.outage[0].model",
        15,
        "no chain uses model `openai/gpt-6-astra`",
    ),
    (
        "provider = \"openai\"\nstart = \"3h\"\nduration = \"7m\"\n",
        "incident.outage[0].duration",
        17,
        "the outage runs from 10800s to 11220s, outside the window [0s, 11160s]",
    ),
    (
        "provider = \"openai\"\nstart = \"4h\"\n",
        "incident.outage[0].start",
        16,
        "the outage starts at 14400s, at or after the window's end (the window is [0s, 11160s]); start must lie in the window",
    ),
    (
        "provider = \"openai\"\nstart = \"-1m\"\n",
        "incident.outage[0].start",
        16,
        "is not a duration",
    ),
    (
        "provider = \"openai\"\nduration = \"0s\"\n",
        "incident.outage[0].duration",
        16,
        "must be a positive duration",
    ),
    (
        "provider = \"openai\"\nerror_rate = 1.5\n",
        "incident.outage[0].error_rate",
        16,
        "must be in [0, 1]; got 1.5",
    ),
    (
        "provider = \"openai\"\nlatency_factor = 0\n",
        "incident.outage[0].latency_factor",
        16,
        "must be a finite number > 0; got 0",
    ),
    (
        "provider = \"anthropic\"\nfailure = \"drill\"\nerror_rate = 0.5\n",
        "incident.outage[0].error_rate",
        17,
        "a drill opens the breaker by hand",
    ),
    (
        "provider = \"anthropic\"\nfailure = \"dril\"\n",
        "incident.outage[0].failure",
        16,
        "unknown variant `dril`, expected one of `fast`, `gray`, `drill` (did you mean `drill`?)",
    ),
    (
        "provider = \"anthropic\"\nerror = 0.5\n",
        "incident.outage[0].error",
        16,
        "unknown field (did you mean `error_rate`?)",
    ),
    // overlapping outages of one provider: the later one's start, on its own table
    (
        "provider = \"openai\"\nstart = \"1h\"\nduration = \"34m\"\n[[incident.outage]]\nmodel = \"openai/gpt-6-sol\"\nstart = \"1h30m\"\n",
        "incident.outage[1].start",
        20,
        "overlaps outage[0] (provider \"openai\", until 5640s)",
    ),
];

#[test]
fn bad_outages_name_their_line_and_field() {
    for (extra, field, line, want) in BAD_OUTAGES {
        let text = format!("{SEPT3_HEAD}[[incident.outage]]\n{extra}");
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(*field), "{e}");
        assert_eq!(e.location.map(|l| l.line), Some(*line), "{e}");
        assert!(e.message.contains(want), "want `{want}`, got {e}");
    }
}

#[test]
fn a_drill_replaces_the_incident_with_the_primarys_provider_drilled() {
    use crate::model::timeline::{OutageFailure, OutageTarget};
    let mut s = load_str(SEPT3_HEAD).unwrap();
    drill(&mut s, "30m", "s.toml").unwrap();
    let i = s.incident.unwrap();
    assert_eq!(i.duration_s, 1_800.0);
    assert_eq!(i.requests_per_second, 1.0);
    let t = i.timeline.unwrap();
    assert_eq!(t.window_s(), 1_800.0);
    assert_eq!(t.outages().len(), 1);
    assert_eq!(
        t.outages()[0].target,
        OutageTarget::Provider("anthropic".into())
    );
    assert_eq!(t.outages()[0].failure, OutageFailure::Drill);
    assert_eq!(t.outages()[0].duration_s, None);

    // No [incident]: what to add.
    let mut s = load_str(&format!("{HEAD}{TWO}")).unwrap();
    let e = drill(&mut s, "30m", "s.toml").unwrap_err();
    assert!(e.to_string().contains("s.toml has no [incident]"), "{e}");
    assert!(
        e.to_string()
            .contains("--set incident.requests_per_second=0.2"),
        "{e}"
    );
    // Primaries on two providers: one drill cannot open both breakers.
    let two_primaries = "[request]\noutput_tokens = 10\n\
         [[chain]]\nname = \"a\"\nmodels = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]\n\
         [[chain]]\nname = \"o\"\nmodels = [\"openai/gpt-6-sol\", \"anthropic/claude-sonnet-5\"]\n\
         [incident]\nduration = \"1h\"\nrequests_per_second = 1\nsession_length = 20\n";
    let mut s = load_str(two_primaries).unwrap();
    let e = drill(&mut s, "30m", "s.toml").unwrap_err();
    assert!(
        e.to_string()
            .contains("the chains' primaries are on anthropic, openai: a (anthropic), o (openai)"),
        "{e}"
    );
    // A bad duration, and a drill with no requests at the rate.
    let mut s = load_str(SEPT3_HEAD).unwrap();
    assert!(
        drill(&mut s, "30", "s.toml")
            .unwrap_err()
            .to_string()
            .contains("has no unit")
    );
    let mut s = load_str(SEPT3_HEAD).unwrap();
    assert!(
        drill(&mut s, "100ms", "s.toml")
            .unwrap_err()
            .to_string()
            .contains("the drill holds no requests")
    );
}

/// Sol → Sonnet 5 → Haiku 4.5 (A, B, C) under `[steady]` `EXTRA`, chain `x`.
fn abc(extra: &str) -> String {
    format!(
        "{HEAD}[[chain]]\nname = \"x\"\n\
         models = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\", \"anthropic/claude-haiku-4-5\"]\n\
         {extra}"
    )
}

/// `text` parsed with `--set` pairs `set`.
fn load_set(text: &str, set: &[(&str, &str)]) -> Result<Scenario, InputError> {
    let set: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse("s.toml", text, Path::new("."), &set)
}

const MODELS: &str = "chain.x.models";
const C_A: &str = "[\"anthropic/claude-haiku-4-5\", \"openai/gpt-5.6-sol\"]";
const B_C_A: &str =
    "[\"anthropic/claude-sonnet-5\", \"anthropic/claude-haiku-4-5\", \"openai/gpt-5.6-sol\"]";
const C_LUNA: &str = "[\"anthropic/claude-haiku-4-5\", \"openai/gpt-6-luna\"]";

/// Issue #38: a `--set` that replaces a chain's models (as `tune --candidate` builds its
/// chains) reads the file's per-link lists by model: each link takes the rate the list gives
/// its model on the chain as written, at the scenario's level and at the chain's own.
#[test]
fn a_replaced_chain_takes_each_links_rate_from_its_model() {
    let text = abc("[steady]\nfailure_rates = [0.005, 0.0, 0.0]\n");
    // as written: by position
    let s = load_set(&text, &[]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.005, 0.0, 0.0]);
    // [C, A]: Haiku's 0.0, then Sol's 0.005
    let s = load_set(&text, &[(MODELS, C_A)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.0, 0.005]);
    let ids: Vec<&str> = s.chains[0].prices().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["anthropic/claude-haiku-4-5", "openai/gpt-5.6-sol"]);

    // trip rates too, with the failure rates
    let text = abc(
        "[steady]\nfailure_rates = [0.01, 0.02, 0.03]\ntimeout_trip_rates = [0.05, 0.04, 0.0]\n",
    );
    let s = load_set(&text, &[(MODELS, B_C_A)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.02, 0.03, 0.01]);
    assert_eq!(trip_rates(&s.chains[0]), vec![0.04, 0.0, 0.05]);
    let s = load_set(&text, &[(MODELS, C_A)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.03, 0.01]);
    assert_eq!(trip_rates(&s.chains[0]), vec![0.0, 0.05]);

    // the chain's own steady lists (over the scenario's)
    let text = abc(
        "steady = { failure_rates = [0.1, 0.2, 0.3], timeout_trip_rates = [0.0, 0.07, 0.08] }\n\
         [steady]\nfailure_rates = [0.5, 0.0, 0.0]\n",
    );
    let s = load_set(&text, &[(MODELS, C_A)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.3, 0.1]);
    assert_eq!(trip_rates(&s.chains[0]), vec![0.08, 0.0]);

    // a chain whose models no --set replaced keeps the list by position
    let two = format!(
        "{text}[[chain]]\nname = \"y\"\n\
         models = [\"anthropic/claude-haiku-4-5\", \"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n"
    );
    let s = load_set(&two, &[(MODELS, C_A)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.3, 0.1]);
    assert_eq!(failure_rates(&s.chains[1]), vec![0.5, 0.0, 0.0]);
}

/// A model the chain as written lacks has no stated rate in the file's list: an error at the
/// list's line naming the key, the model, the chain and what to write instead, never a
/// borrowed or zero rate.
#[test]
fn a_model_not_on_the_chain_as_written_has_no_rate_in_its_list() {
    let text = abc("[steady]\nfailure_rates = [0.005, 0.0, 0.0]\n");
    let e = load_set(&text, &[(MODELS, C_LUNA)]).unwrap_err();
    assert_eq!(e.kind, InputErrorKind::Invalid);
    assert_eq!(e.file, "s.toml");
    assert_eq!(e.field.as_deref(), Some("steady.failure_rates"));
    let at = e.location.unwrap();
    assert_eq!((at.line, at.col), (8, 17), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("s.toml:8:17: steady.failure_rates: `openai/gpt-6-luna` is not on chain `x` as written (`openai/gpt-5.6-sol`, `anthropic/claude-sonnet-5`, `anthropic/claude-haiku-4-5`)"),
        "{msg}"
    );
    assert!(
        msg.contains("state one `steady.failure_rate` for every link instead of the list, or put `openai/gpt-6-luna` on the chain with its rate"),
        "{msg}"
    );

    // a trip-rate list, and a chain's own list, each named at its own line
    let text = abc("[steady]\ntimeout_trip_rates = [0.05, 0.0, 0.0]\n");
    let e = load_set(&text, &[(MODELS, C_LUNA)]).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("steady.timeout_trip_rates"), "{e}");
    assert_eq!(e.location.map(|l| l.line), Some(8), "{e}");
    assert!(
        e.message
            .contains("state `steady.timeout_trip_rate` (the primary's) instead of the list"),
        "{e}"
    );
    let text = abc("steady = { failure_rates = [0.1, 0.2, 0.3] }\n");
    let e = load_set(&text, &[(MODELS, C_LUNA)]).unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("chain[0].steady.failure_rates"),
        "{e}"
    );
    assert_eq!(e.location.map(|l| l.line), Some(7), "{e}");
    assert!(e.message.contains("`openai/gpt-6-luna`"), "{e}");

    // a model the chain as written lists twice with two rates has no one rate
    let text = format!(
        "{HEAD}[[chain]]\nname = \"x\"\n\
         models = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\", \"openai/gpt-5.6-sol\"]\n\
         [steady]\nfailure_rates = [0.1, 0.0, 0.2]\n"
    );
    let e = load_set(&text, &[(MODELS, "[\"openai/gpt-5.6-sol\"]")]).unwrap_err();
    assert!(
        e.message.contains("more than once, with rates 0.1 and 0.2"),
        "{e}"
    );
}

/// A scalar rate applies to any chain; a list the user's own `--set` states is theirs, one
/// value per link of the chain as it is now (checked against its length, as for the file).
#[test]
fn a_scalar_or_a_list_given_by_set_is_not_read_by_model() {
    let text = abc("[steady]\nfailure_rate = 0.01\ntimeout_trip_rate = 0.05\n");
    let s = load_set(&text, &[(MODELS, C_LUNA)]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.01, 0.01]);
    assert_eq!(trip_rates(&s.chains[0]), vec![0.05, 0.0]);

    let text = abc("[steady]\nfailure_rates = [0.005, 0.0, 0.0]\n");
    let mine = ("steady.failure_rates", "[0.2, 0.3]");
    for set in [[(MODELS, C_LUNA), mine], [mine, (MODELS, C_LUNA)]] {
        let s = load_set(&text, &set).unwrap();
        assert_eq!(failure_rates(&s.chains[0]), vec![0.2, 0.3]);
    }
    let s = load_set(&text, &[(MODELS, C_LUNA), ("steady.failure_rate", "0.02")]).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.02, 0.02]);
    let e = load_set(
        &text,
        &[
            (MODELS, C_LUNA),
            ("steady.failure_rates", "[0.2, 0.3, 0.4]"),
        ],
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("has 3 values for a chain of 2 models; give one per model"),
        "{e}"
    );
    // the chain's own list, set for the chain as it is now
    let text = abc("steady = { failure_rates = [0.1, 0.2, 0.3] }\n");
    let set = [
        (MODELS, C_LUNA),
        ("chain.x.steady.failure_rates", "[0.4, 0.6]"),
    ];
    let s = load_set(&text, &set).unwrap();
    assert_eq!(failure_rates(&s.chains[0]), vec![0.4, 0.6]);
}

/// GPT-5.6 Sol → GPT-6 Sol → GPT-6 Luna (A, B, C) in the LiteLLM table (each priced in every
/// service tier), chain `t`, with `EXTRA` in the chain.
fn tiered(extra: &str) -> String {
    format!(
        "pricing = \"litellm\"\n{HEAD}[[chain]]\nname = \"t\"\n\
         models = [\"openai/gpt-5.6-sol\", \"openai/gpt-6-sol\", \"openai/gpt-6-luna\"]\n\
         {extra}"
    )
}

const T_MODELS: &str = "chain.t.models";
/// [C, A] as `tune` writes it: by the ids the table resolves them to.
const T_C_A: &str = "[\"gpt-6-luna\", \"gpt-5.6-sol\"]";
/// [Astra, A]: GPT-6 Astra is not on the chain as written.
const T_ASTRA_A: &str = "[\"gpt-6-astra\", \"gpt-5.6-sol\"]";

/// Each link's service tier, primary first.
fn tiers_of(s: &Scenario) -> Vec<ServiceTier> {
    s.billing.service_tiers[0].1.clone()
}

/// Each link's input price after its tier, $/MTok.
fn inputs_of(s: &Scenario) -> Vec<f64> {
    s.chains[0].links.iter().map(|l| l.price.input).collect()
}

/// Issue #38, the service tiers: a chain's `service_tiers` is one tier per model of the chain
/// as written, and a `--set` that replaces its models gives each link its model's tier (by
/// resolved id: the file writes `openai/gpt-6-luna`, tune `gpt-6-luna`). A chain A, B, C at
/// priority, standard, flex replaced by [C, A] bills Luna at flex ($0.05/MTok in, the LiteLLM
/// table's flex price) and GPT-5.6 Sol at priority ($8): not priority and standard by position.
#[test]
fn a_replaced_chain_takes_each_links_service_tier_from_its_model() {
    use ServiceTier::{Flex, Priority, Standard};
    let text = tiered("service_tiers = [\"priority\", \"standard\", \"flex\"]\n");
    let s = load_set(&text, &[]).unwrap();
    assert_eq!(tiers_of(&s), [Priority, Standard, Flex]);
    assert_eq!(inputs_of(&s), [8.0, 2.0, 0.05]);

    let s = load_set(&text, &[(T_MODELS, T_C_A)]).unwrap();
    assert_eq!(tiers_of(&s), [Flex, Priority]);
    assert_eq!(inputs_of(&s), [0.05, 8.0]);
    let set = [(T_MODELS, "[\"gpt-6-sol\", \"gpt-6-luna\", \"gpt-5.6-sol\"]")];
    let s = load_set(&text, &set).unwrap();
    assert_eq!(tiers_of(&s), [Standard, Flex, Priority]);

    // the user's own list is one per link of the chain as it is now, in either order
    let mine = ("chain.t.service_tiers", "[\"batch\", \"standard\"]");
    for set in [[(T_MODELS, T_C_A), mine], [mine, (T_MODELS, T_C_A)]] {
        let s = load_set(&text, &set).unwrap();
        assert_eq!(tiers_of(&s), [ServiceTier::Batch, Standard], "{set:?}");
    }
    // a chain's or the scenario's one tier applies to every link, as before
    let text = tiered("service_tier = \"flex\"\n");
    let s = load_set(&text, &[(T_MODELS, T_C_A)]).unwrap();
    assert_eq!(tiers_of(&s), [Flex, Flex]);
}

/// A model not on the chain as written has no tier in the list: it is billed at the tier a
/// link the list does not name gets (the chain's `service_tier`, else the scenario's, else
/// standard), never at another model's. A list of the wrong length for the chain as written
/// is refused as the file as written is; a model listed twice with two tiers has no one tier.
#[test]
fn a_model_not_on_the_chain_as_written_takes_the_default_tier() {
    use ServiceTier::{Batch, Flex, Priority, Standard};
    let list = "service_tiers = [\"priority\", \"standard\", \"flex\"]\n";
    let s = load_set(&tiered(list), &[(T_MODELS, T_ASTRA_A)]).unwrap();
    assert_eq!(tiers_of(&s), [Standard, Priority]);
    // GPT-6 Astra at standard, $10/MTok in (priority would be $20)
    assert_eq!(inputs_of(&s), [10.0, 8.0]);
    let top = format!("service_tier = \"batch\"\n{}", tiered(list));
    let s = load_set(&top, &[(T_MODELS, T_ASTRA_A)]).unwrap();
    assert_eq!(tiers_of(&s), [Batch, Priority]);
    let own = tiered(&format!("{list}service_tier = \"flex\"\n"));
    let s = load_set(&own, &[(T_MODELS, T_ASTRA_A)]).unwrap();
    assert_eq!(tiers_of(&s), [Flex, Priority]);

    let e = load_set(
        &tiered("service_tiers = [\"priority\", \"standard\"]\n"),
        &[(T_MODELS, T_C_A)],
    )
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("chain[0].service_tiers"), "{e}");
    assert!(
        e.message
            .contains("gives 2 service tiers for 3 models; give one per model"),
        "{e}"
    );
    let text = format!(
        "pricing = \"litellm\"\n{HEAD}[[chain]]\nname = \"t\"\n\
         models = [\"gpt-5.6-sol\", \"gpt-6-sol\", \"gpt-5.6-sol\"]\n\
         service_tiers = [\"priority\", \"standard\", \"flex\"]\n"
    );
    let e = load_set(&text, &[(T_MODELS, "[\"gpt-5.6-sol\"]")]).unwrap_err();
    assert_eq!(e.location.map(|l| l.line), Some(8), "{e}");
    assert!(
        e.message.contains(
            "`gpt-5.6-sol` is on chain `t` as written (`gpt-5.6-sol`, `gpt-6-sol`, `gpt-5.6-sol`) more than once, with tiers priority and flex"
        ),
        "{e}"
    );
}

/// Each link's own timeout, primary first.
fn link_timeouts(c: &crate::model::Chain) -> Vec<Option<f64>> {
    c.links.iter().map(|l| l.timeout_s).collect()
}

/// Each link's output cap, primary first.
fn link_caps(c: &crate::model::Chain) -> Vec<Option<u64>> {
    c.links.iter().map(|l| l.max_output_tokens).collect()
}

/// Issue #38, the maps keyed by model: a chain's `link_timeouts_s` and `max_output_tokens`
/// keep applying to the links of their model when a `--set` replaces the chain's models, and
/// their entries for a model the replaced chain dropped (Sonnet 5 here) apply to nothing
/// instead of failing as keys of none of its models. Sol (A), Sonnet 5 (B), Haiku 4.5 (C)
/// replaced by [C, A]: Haiku keeps its 20 s timeout and Sol its 300-token cap (its 500 output
/// tokens billed as 300: $30/MTok × 300 = $0.009 a request, its price scaled by 300/500).
#[test]
fn a_replaced_chain_keeps_each_models_own_timeout_and_cap() {
    let text = abc(
        "link_timeouts_s = { \"anthropic/claude-sonnet-5\" = 60, \"anthropic/claude-haiku-4-5\" = 20 }\n\
         max_output_tokens = { \"anthropic/claude-sonnet-5\" = 800, \"openai/gpt-5.6-sol\" = 300 }\n",
    );
    let s = load_set(&text, &[]).unwrap();
    assert_eq!(link_timeouts(&s.chains[0]), [None, Some(60.0), Some(20.0)]);
    assert_eq!(link_caps(&s.chains[0]), [Some(300), Some(800), None]);

    let s = load_set(&text, &[(MODELS, C_A)]).unwrap();
    let c = &s.chains[0];
    assert_eq!(link_timeouts(c), [Some(20.0), None]);
    assert_eq!(link_caps(c), [None, Some(300)]);
    assert_eq!(c.links[1].price.output, 30.0 * 300.0 / 500.0);
    assert_eq!(c.links[0].price.output, 5.0);
    let s = load_set(&text, &[(MODELS, "[\"anthropic/claude-sonnet-5\"]")]).unwrap();
    assert_eq!(link_timeouts(&s.chains[0]), [Some(60.0)]);
    assert_eq!(link_caps(&s.chains[0]), [Some(800)]);

    // the user's own entry is for the chain as it is now, and wins over the file's
    let set = [
        (MODELS, C_A),
        (
            "chain.x.link_timeouts_s.\"anthropic/claude-haiku-4-5\"",
            "45",
        ),
    ];
    let s = load_set(&text, &set).unwrap();
    assert_eq!(link_timeouts(&s.chains[0]), [Some(45.0), None]);

    // by resolved id: the file keys `openai/gpt-6-luna`, tune's chain says `gpt-6-luna`
    let text = tiered(
        "link_timeouts_s = { \"openai/gpt-6-luna\" = 20, \"openai/gpt-6-sol\" = 40 }\n\
         max_output_tokens = { \"openai/gpt-6-sol\" = 300 }\n",
    );
    let s = load_set(&text, &[(T_MODELS, T_C_A)]).unwrap();
    assert_eq!(link_timeouts(&s.chains[0]), [Some(20.0), None]);
    assert_eq!(link_caps(&s.chains[0]), [None, None]);
}

/// The file as written still refuses a key that is none of the chain's models, and so does a
/// replaced chain (it is none of the models as written: a typo, not an entry the --set
/// dropped); a user's own entry for a model the chain does not have now is refused as before.
#[test]
fn a_stale_key_is_refused_with_or_without_a_replaced_chain() {
    let text = abc("link_timeouts_s = { \"anthropic/claude-sonet-5\" = 60 }\n");
    let e = load_set(&text, &[]).unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("chain[0].link_timeouts_s.\"anthropic/claude-sonet-5\""),
        "{e}"
    );
    assert!(
        e.message.starts_with(
            "`anthropic/claude-sonet-5` is not one of this chain's models (`openai/gpt-5.6-sol`, "
        ),
        "{e}"
    );
    let e = load_set(&text, &[(MODELS, C_A)]).unwrap_err();
    assert_eq!(e.location.map(|l| (l.line, l.col)), Some((7, 50)), "{e}");
    assert!(
        e.message.starts_with(
            "`anthropic/claude-sonet-5` is not one of this chain's models as written (`openai/gpt-5.6-sol`, `anthropic/claude-sonnet-5`, `anthropic/claude-haiku-4-5`); key link_timeouts_s by a model as written in `models`"
        ),
        "{e}"
    );
    let text = abc("max_output_tokens = { \"anthropic/claude-sonnet-5\" = 800 }\n");
    let set = [
        (MODELS, C_A),
        (
            "chain.x.max_output_tokens.\"anthropic/claude-opus-5\"",
            "100",
        ),
    ];
    let e = load_set(&text, &set).unwrap_err();
    assert!(
        e.message.starts_with(
            "`anthropic/claude-opus-5` is not one of this chain's models (`anthropic/claude-haiku-4-5`, `openai/gpt-5.6-sol`)"
        ),
        "{e}"
    );
}

/// Sonnet 5 → GPT-6 Sol → Grok 4.7 (chain `x`), a one-hour incident with an xAI outage and a
/// GPT-6 Sol one, and `outage` (a third outage's target) if given.
fn outages(third: &str) -> String {
    format!(
        "{HEAD}[[chain]]\nname = \"x\"\n\
         models = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\", \"xai/grok-4.7\"]\n\
         [incident]\nduration = \"1h\"\nrequests_per_second = 1.0\nsession_length = 10\n\
         [[incident.outage]]\nprovider = \"xai\"\nstart = \"20m\"\nduration = \"10m\"\n\
         [[incident.outage]]\nmodel = \"openai/gpt-6-sol\"\nduration = \"5m\"\n{third}"
    )
}

/// The outages keyed by what the chains use: where a `--set` replaces a chain's models (tune
/// --candidate on scenarios/sept3-timeline.toml's `three-providers` tried [Sonnet 5, GPT-6
/// Sol] and failed with "no chain uses provider `xai`"), an outage on a provider or model the
/// chains used as written hits no chain now, as an outage of a chain `--chain` leaves out;
/// one on a provider no chain uses as written (a typo) is still refused.
#[test]
fn an_outage_on_what_the_replaced_chain_dropped_hits_no_chain() {
    let text = outages("");
    let s = load_set(&text, &[]).unwrap();
    assert_eq!(s.incident.unwrap().timeline.unwrap().outages().len(), 2);
    let sonnet = "[\"anthropic/claude-sonnet-5\"]";
    let s = load_set(&text, &[(MODELS, sonnet)]).unwrap();
    let ids: Vec<&str> = s.chains[0].prices().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["anthropic/claude-sonnet-5"]);
    let timeline = s.incident.unwrap().timeline.unwrap();
    assert_eq!(timeline.outages().len(), 2);

    let typo = outages("[[incident.outage]]\nprovider = \"xia\"\n");
    for set in [&[][..], &[(MODELS, sonnet)][..]] {
        let e = load_set(&typo, set).unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("incident.outage[2].provider"),
            "{e}"
        );
        assert!(
            e.message
                .starts_with("no chain uses provider `xia` (did you mean `xai`?)"),
            "{e}"
        );
    }
}
