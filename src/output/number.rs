//! How numbers print: money to the cent (more digits under $1), changes as `+0.03%`,
//! multipliers as `1.32x`, counts with thousands separators. No float noise: values are rounded
//! to what is shown, never printed with `{}`.

/// `value` with at most `decimals` decimals, trailing zeros (and a trailing point) removed.
pub fn trim(value: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, value);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".to_string() } else { s }
}

/// Group the integer part of a plain decimal string with commas: `2284.01` → `2,284.01`.
pub fn group(s: &str) -> String {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", s),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

/// Money in USD for people: to the cent at $1 and above (`2,284.01`), four significant digits
/// below (`0.42`, `0.0875`, `0.001615`), `0.00` for zero.
pub fn money(usd: f64) -> String {
    if usd == 0.0 {
        return "0.00".to_string();
    }
    if usd.abs() >= 1e15 {
        // Beyond a quadrillion dollars, cents are float noise: show three significant decimals.
        return format!("{usd:.3e}");
    }
    if usd.abs() >= 1.0 {
        // Round first, so 0.999996 does not print as 1.00 in one place and 0.99999 in another.
        return group(&format!("{:.2}", usd));
    }
    let magnitude = usd.abs().log10().floor() as i32; // -1 for 0.42, -2 for 0.0875
    let decimals = (3 - magnitude).clamp(2, 12) as usize;
    let s = trim(usd, decimals);
    if s.split_once('.').is_none_or(|(_, f)| f.len() < 2) {
        format!("{:.2}", usd)
    } else {
        s
    }
}

/// A relative change as a signed percentage with two decimals: 0.0003 → `+0.03%`.
pub fn change(ratio: f64) -> String {
    let pct = ratio * 100.0;
    let s = format!("{:+.2}%", pct);
    if s == "-0.00%" {
        "+0.00%".to_string()
    } else {
        s
    }
}

/// A multiplier with two decimals: `1.32x`.
pub fn multiplier(ratio: f64) -> String {
    format!("{:.2}x", ratio)
}

/// A count for people: whole numbers grouped (`11,160`), fractions to four significant digits.
pub fn count(n: f64) -> String {
    if n == n.round() && n.abs() < 1e15 {
        return group(&format!("{:.0}", n));
    }
    if n.abs() >= 100.0 {
        return group(&trim(n, 1));
    }
    let magnitude = n.abs().log10().floor() as i32;
    trim(n, (3 - magnitude).clamp(0, 12) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_to_the_cent_and_more_digits_under_a_dollar() {
        assert_eq!(money(513.5832), "513.58");
        assert_eq!(money(2284.0056), "2,284.01");
        assert_eq!(money(25.0075), "25.01");
        assert_eq!(money(0.42), "0.42");
        assert_eq!(money(0.0875), "0.0875");
        assert_eq!(money(0.001615), "0.001615");
        assert_eq!(money(0.0016150000000000001), "0.001615");
        assert_eq!(money(0.5), "0.50");
        assert_eq!(money(0.0), "0.00");
        assert_eq!(money(1_000_000.0), "1,000,000.00");
    }

    #[test]
    fn changes_and_multipliers() {
        assert_eq!(change(0.0003), "+0.03%");
        assert_eq!(change(0.16), "+16.00%");
        assert_eq!(change(-0.0015), "-0.15%");
        assert_eq!(change(-1e-9), "+0.00%");
        assert_eq!(multiplier(1.3224), "1.32x");
        assert_eq!(multiplier(5.8813), "5.88x");
    }

    #[test]
    fn counts() {
        assert_eq!(count(11160.0), "11,160");
        assert_eq!(count(5.0), "5");
        assert_eq!(count(0.025), "0.025");
        assert_eq!(count(0.0), "0");
        assert_eq!(count(1234.56), "1,234.6");
    }
}
