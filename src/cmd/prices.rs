//! `fallcost prices`: print a price table as fallcost read it.

use crate::cli::{PriceSort, PricesArgs};
use crate::error::ExitStatus;
use crate::input::pricing::{BUNDLED, PricingRef, broad_name};
use crate::model::{ModelPrice, prices::same_provider};
use crate::output::{self, Format, layout, table};

/// Whether `id` matches `pattern`: case-insensitive, anywhere in the id, `*` matching any run
/// of characters (`claude*4-5` matches `anthropic/claude-sonnet-4-5`).
pub fn matches(pattern: &str, id: &str) -> bool {
    let id = id.to_lowercase();
    let mut rest = id.as_str();
    for part in pattern.to_lowercase().split('*').filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// `fallcost prices --list`: the bundled tables, and the cached `latest` when there is one.
fn list() -> String {
    let mut out = String::from("Bundled price tables (name, date, default for, source):\n");
    for b in BUNDLED {
        let aliases = if b.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", b.aliases.join(", "))
        };
        out.push_str(&format!(
            "  {}{aliases}  {}  default for {}  {}\n",
            b.name, b.date, b.default_for, b.source
        ));
    }
    match crate::input::update::cache_file() {
        Some(p) if p.is_file() => out.push_str(&format!(
            "  latest  the file `fallcost prices --update` downloaded: {}\n",
            p.display()
        )),
        Some(p) => out.push_str(&format!(
            "  latest  not downloaded yet (`fallcost prices --update` writes {})\n",
            p.display()
        )),
        None => {}
    }
    out
}

/// Load the table (bundled name or path, relative to the working directory), filter and sort
/// it, and print it; or `--list` the bundled tables; or `--update` the cached LiteLLM file.
///
/// Errors: an unreadable or invalid table; a failed download; an output that cannot be written.
pub fn run(args: &PricesArgs) -> anyhow::Result<ExitStatus> {
    let (format, target) = super::output_of(&args.output);
    if args.list {
        output::write(&target, list().as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    if let Some(url) = &args.update {
        let url = (!url.is_empty()).then_some(url.as_str());
        let (path, table) = crate::input::update::update(url)?;
        let msg = format!(
            "fallcost: downloaded {} models to {}; use it with --pricing latest\n",
            table.models.len(),
            path.display()
        );
        output::write(&target, msg.as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let spec = args.pricing.as_deref().unwrap_or(broad_name());
    let mut prices = PricingRef::parse(spec, None).load()?;
    let total = prices.models.len();
    prices.models.retain(|id, m| {
        args.pattern.as_deref().is_none_or(|p| matches(p, id))
            && args
                .provider
                .as_deref()
                .is_none_or(|p| same_provider(&m.provider, p))
    });
    if prices.models.is_empty() {
        anyhow::bail!(
            "no model of price table {spec} matches{}{}",
            args.pattern
                .as_deref()
                .map_or(String::new(), |p| format!(" `{p}`")),
            args.provider
                .as_deref()
                .map_or(String::new(), |p| format!(" with provider `{p}`"))
        );
    }
    // LiteLLM's USD per token times a million carries float noise (15.000020000000003): show
    // every price at 12 significant digits, in every format.
    for m in prices.models.values_mut() {
        for p in [&mut m.input, &mut m.output, &mut m.cache_ttl_s]
            .into_iter()
            .chain(m.cached_input.as_mut())
            .chain(m.cache_write.as_mut())
            .chain(m.cache_write_1h.as_mut())
            .chain(m.tiers.iter_mut().map(|t| &mut t.price))
        {
            *p = crate::report::clean(*p);
        }
    }
    let mut sorted: Vec<&ModelPrice> = prices.models.values().collect();
    match args.sort {
        PriceSort::Model => {}
        PriceSort::Input => sorted.sort_by(|a, b| a.input.total_cmp(&b.input)),
        PriceSort::Output => sorted.sort_by(|a, b| a.output.total_cmp(&b.output)),
    }
    let mut doc = layout::prices_of(&prices, &sorted);
    if sorted.len() < total {
        doc.preamble
            .push(format!("{} of {total} models shown", sorted.len()));
    }
    let bytes = match format {
        Format::Table => table::render(&doc, table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&doc, table::Style::Markdown).into_bytes(),
        Format::Json => output::json::render(&prices)?,
        Format::Csv => {
            let mut w = ::csv::Writer::from_writer(Vec::new());
            w.write_record([
                "model",
                "provider",
                "input",
                "cached_input",
                "cache_write",
                "output",
                "caching",
                "cache_ttl_s",
                // appended, so the columns before keep their places
                "cache_write_1h",
                "min_cache_prefix",
                "context_tiers_above_tokens",
                "service_tiers",
            ])?;
            for m in &sorted {
                w.write_record([
                    output::csv::guard(&m.id),
                    output::csv::guard(&m.provider),
                    output::csv::num(Some(m.input)),
                    output::csv::num(m.cached_input),
                    output::csv::num(m.cache_write),
                    output::csv::num(Some(m.output)),
                    m.caching.as_str().to_string(),
                    output::csv::num(Some(m.cache_ttl_s)),
                    output::csv::num(m.cache_write_1h),
                    m.min_cache_prefix.map_or(String::new(), |n| n.to_string()),
                    m.context_tiers()
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(";"),
                    m.services()
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(";"),
                ])?;
            }
            w.into_inner()?
        }
    };
    output::write(&target, &bytes)?;
    Ok(ExitStatus::Success)
}
