//! `fallcost prices`: print a price table as fallcost read it.

use crate::cli::PricesArgs;
use crate::error::ExitStatus;
use crate::input::pricing::{PricingRef, default_name};
use crate::output::{self, Format, layout, table};

/// Load the table (bundled name or path, relative to the working directory) and print it.
///
/// Errors: an unreadable or invalid table; an output that cannot be written.
pub fn run(args: &PricesArgs) -> anyhow::Result<ExitStatus> {
    let (format, target) = super::output_of(&args.output);
    let spec = args.pricing.as_deref().unwrap_or(default_name());
    let mut prices = PricingRef::parse(spec, None).load()?;
    // LiteLLM's USD per token times a million carries float noise (15.000020000000003): show
    // every price at 12 significant digits, in every format.
    for m in prices.models.values_mut() {
        for p in [&mut m.input, &mut m.output, &mut m.cache_ttl_s]
            .into_iter()
            .chain(m.cached_input.as_mut())
            .chain(m.cache_write.as_mut())
        {
            *p = crate::report::clean(*p);
        }
    }
    let bytes = match format {
        Format::Table => {
            table::render(&layout::prices(&prices), table::Style::Terminal).into_bytes()
        }
        Format::Markdown => {
            table::render(&layout::prices(&prices), table::Style::Markdown).into_bytes()
        }
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
            ])?;
            for m in prices.models.values() {
                w.write_record([
                    output::csv::guard(&m.id),
                    output::csv::guard(&m.provider),
                    output::csv::num(Some(m.input)),
                    output::csv::num(m.cached_input),
                    output::csv::num(m.cache_write),
                    output::csv::num(Some(m.output)),
                    m.caching.as_str().to_string(),
                    output::csv::num(Some(m.cache_ttl_s)),
                ])?;
            }
            w.into_inner()?
        }
    };
    output::write(&target, &bytes)?;
    Ok(ExitStatus::Success)
}
