//! JSON export: the [`crate::report::Report`] as one pretty-printed object (MODEL.md §10 keys).

use serde::Serialize;

/// Any serializable report as pretty JSON bytes with a trailing newline.
pub fn render<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(value)?;
    out.push(b'\n');
    Ok(out)
}
