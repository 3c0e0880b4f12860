//! `fallcost prices`: print a price table as fallcost read it ([`crate::ops::prices`],
//! rendered by [`crate::output::prices`]).

use crate::cli::PricesArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::ops::prices;
use crate::output;
use crate::output::prices::ListedTable;

/// Print the filtered, sorted table; or `--list` the bundled tables; or `--update` the cached
/// LiteLLM file.
///
/// Errors: an unreadable or invalid table; a failed download; an output that cannot be written.
pub fn run(args: &PricesArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    if args.list {
        let tables: Vec<ListedTable> = crate::input::pricing::BUNDLED
            .iter()
            .map(|b| ListedTable {
                name: b.name,
                aliases: b.aliases,
                date: b.date,
                default_for: b.default_for,
                source: b.source,
            })
            .collect();
        let latest = crate::input::update::cache_file();
        let latest = latest.as_deref().map(|p| (p, p.is_file()));
        output::write(target, output::prices::list(&tables, latest).as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    if let Some(url) = &args.update {
        let url = (!url.is_empty()).then_some(url.as_str());
        let (path, table) = crate::input::update::update(url)?;
        let msg = output::prices::updated(table.models.len(), &path);
        output::write(target, msg.as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let pattern = args.pattern.as_deref();
    let provider = args.provider.as_deref();
    let sel = prices::select(args.pricing.as_deref(), pattern, provider, args.sort)?;
    let bytes = output::prices::render(&sel.table, &sel.shown(), sel.total, format)?;
    output::write(target, &bytes)?;
    Ok(ExitStatus::Success)
}
