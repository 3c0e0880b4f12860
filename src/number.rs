//! How numbers print: money to the cent (more digits under $1), changes as `+0.03%`,
//! multipliers as `1.32x`, counts with thousands separators. No float noise: values are rounded
//! to what is shown, never printed with `{}`; values kept in results go through
//! [`round_noise`] (binary float noise dropped); durations print as `3h6m`
//! ([`format_seconds`]). A leaf: it uses no other module.

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

/// How many digits [`percent`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Exactly this many decimals, zeros kept: `12.50%` (a change, a residual, a chart label).
    Fixed(usize),
    /// At most this many decimals, trailing zeros (and point) dropped ([`trim`]): `12.5%` (the
    /// compare tables and a config's traffic shares 2, `tune`'s availabilities 4).
    AtMost(usize),
    /// This many significant digits, trailing zeros dropped, however small the share
    /// (`0.0000722%`); a share short of 100% never prints as `100%` (it keeps the digits that
    /// tell it apart: `99.996%`). For shares that may be tiny (answered-by shares, calibrated
    /// rates).
    Significant(usize),
}

/// A share (0.999, a fraction of 1) as a percentage (`99.9%`): the one percent formatter, every
/// printed percentage goes through it. `digits` says how many digits it keeps ([`Digits`]);
/// `signed` writes a `+` before a positive or zero value (`+0.03%`: a change), and a negative
/// value that rounds to zero prints as `+0.00%`, never `-0.00%`.
pub fn percent(share: f64, digits: Digits, signed: bool) -> String {
    let p = 100.0 * share;
    let s = match digits {
        Digits::Fixed(d) => format!("{p:.d$}"),
        Digits::AtMost(d) => trim(p, d),
        Digits::Significant(n) => significant(p, n),
    };
    if !signed {
        return format!("{s}%");
    }
    let magnitude = s.trim_start_matches('-');
    let zero = magnitude.chars().all(|c| c == '0' || c == '.');
    if s.starts_with('-') && !zero {
        format!("{s}%")
    } else {
        format!("+{magnitude}%")
    }
}

/// `p` with `n` significant digits ([`Digits::Significant`]'s rule), trailing zeros dropped;
/// below 100 it never rounds up to `100`.
fn significant(p: f64, n: usize) -> String {
    if p == 0.0 || !p.is_finite() {
        return trim(p, 0);
    }
    let mut digits = (n as i32 - 1 - p.abs().log10().floor() as i32).max(0) as usize;
    let mut s = trim(p, digits);
    while p < 100.0 && s == "100" && digits < 12 {
        digits += 1;
        s = trim(p, digits);
    }
    s
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
    let mut out = String::with_capacity(s.len() + int.len() / 3 + 1);
    out.push_str(sign);
    grouped(&mut out, int, frac);
    out
}

/// `int` (a string of digits) after `out` with a comma before every three digits from its
/// end, then `.frac` where there is one: [`group`]'s text past the sign.
fn grouped(out: &mut String, int: &str, frac: Option<&str>) {
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
}

/// Ten trillion USD: up to here a binary float holds every cent (its spacing is $0.002 at 1e13
/// and passes a cent near 7e13); beyond, [`money`] prints four significant digits (`6.578e20`)
/// rather than cents it does not have.
pub const EXACT_CENTS: f64 = 1e13;

/// Money in USD for people: to the cent from $1 to [`EXACT_CENTS`] (`2,284.01`), four
/// significant digits below (`0.42`, `0.0875`, `0.001615`) and above (`6.578e20`), `0.00` for
/// zero. Half a cent rounds up, as on a bill
/// (`18.235` → `18.24`).
pub fn money(usd: f64) -> String {
    if usd.abs() >= EXACT_CENTS {
        // Cents would be float noise: four significant digits, as a float.
        return format!("{usd:.3e}");
    }
    money_at(usd, money_decimals(usd))
}

/// How many decimals [`money`] shows for `usd`: 2 at $1 and above (and for zero); below, enough
/// for four significant digits, at most 12.
pub fn money_decimals(usd: f64) -> usize {
    if usd == 0.0 || usd.abs() >= 1.0 {
        return 2;
    }
    let magnitude = usd.abs().log10().floor() as i32; // -1 for 0.42, -2 for 0.0875
    (3 - magnitude).clamp(2, 12) as usize
}

/// `usd` rounded to `decimals` (half away from zero, on the decimal value) and printed with
/// thousands separators; past two decimals, trailing zeros are dropped.
fn money_at(usd: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    // Round the scaled value, not the binary one: 18.235 is stored as 18.2349999…, but
    // 18.235 × 100 rounds to 1823.5, so the bill's half cent rounds up.
    let units = (usd * scale).round();
    if units == 0.0 {
        return "0.00".to_string();
    }
    if units.abs() < 1e15 && decimals <= 12 {
        return money_units(units, decimals);
    }
    let s = trim(units / scale, decimals);
    if s.split_once('.').is_none_or(|(_, f)| f.len() < 2) {
        group(&format!("{:.2}", units / scale))
    } else {
        group(&s)
    }
}

/// The decimal digits of `n` (at least `least` of them, zeros before) at the end of `buf`
/// (filled with `0`s).
fn digits(mut n: u64, buf: &mut [u8; 32], least: usize) -> &str {
    let mut start = buf.len();
    while n > 0 {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = start.min(buf.len() - least.clamp(1, buf.len()));
    std::str::from_utf8(&buf[start..]).unwrap_or("0")
}

/// [`money_at`]'s text for `units` (a whole number of 10^−`decimals` USD, not zero, below
/// 10^15) from its digits: `units / scale` printed with `decimals` decimals is those digits
/// with the point put in (the quotient is within half a unit in its last place of them, far
/// below half of 10^−`decimals` under [`EXACT_CENTS`] and under $1), trailing zeros past two
/// decimals dropped, grouped. No float formatting.
fn money_units(units: f64, decimals: usize) -> String {
    let mut buf = [b'0'; 32];
    // at least one digit before the point
    let text = digits(units.abs() as u64, &mut buf, decimals + 1);
    let (int, frac) = text.split_at(text.len() - decimals);
    let kept = frac.trim_end_matches('0').len().max(2);
    let mut out = String::with_capacity(int.len() * 4 / 3 + kept + 2);
    if units < 0.0 {
        out.push('-');
    }
    grouped(&mut out, int, Some(&frac[..kept]));
    out
}

/// A total and its parts, in USD, printed as [`money`] prints the total and rounded so that
/// the printed parts add up to the printed total (largest remainder): 388.368 + 54.2376 +
/// 70.9776 = 513.5832 prints as 388.37 + 54.24 + 70.97 = 513.58. Parts are non-negative.
/// Returns the printed total and the printed parts, in order.
pub fn money_adding_up(parts: &[f64], total: f64) -> (String, Vec<String>) {
    if total.abs() >= EXACT_CENTS {
        return (money(total), parts.iter().map(|p| money(*p)).collect());
    }
    let decimals = money_decimals(total);
    let scale = 10f64.powi(decimals as i32);
    let mut units: Vec<(f64, f64)> = parts
        .iter()
        .map(|p| {
            let scaled = p * scale;
            (scaled.floor(), scaled - scaled.floor())
        })
        .collect();
    let mut short = (total * scale).round() - units.iter().map(|u| u.0).sum::<f64>();
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by(|a, b| units[*b].1.total_cmp(&units[*a].1).then(a.cmp(b)));
    for i in order {
        if short < 0.5 {
            break;
        }
        units[i].0 += 1.0;
        short -= 1.0;
    }
    let printed = units
        .iter()
        .map(|u| money_at(u.0 / scale, decimals))
        .collect();
    (money_at(total, decimals), printed)
}

/// A relative change as a signed percentage with two decimals: 0.0003 → `+0.03%`
/// ([`percent`], [`Digits::Fixed`] 2, signed).
pub fn change(ratio: f64) -> String {
    percent(ratio, Digits::Fixed(2), true)
}

/// A multiplier with two decimals: `1.32x`.
pub fn multiplier(ratio: f64) -> String {
    format!("{:.2}x", ratio)
}

/// A count for people: whole numbers grouped (`11,160`), fractions of 1 and more to two
/// decimals (`6.76`, `1,234.56`, so a fraction never reads as a grouped whole number), smaller
/// fractions to four significant digits (`0.025`, `0.007943`).
pub fn count(n: f64) -> String {
    if n == n.round() && n.abs() < 1e15 {
        // a whole number below 10^15 prints as its digits
        let mut out = String::with_capacity(24);
        if n.is_sign_negative() {
            out.push('-');
        }
        grouped(&mut out, digits(n.abs() as u64, &mut [b'0'; 32], 1), None);
        return out;
    }
    if n.abs() >= 1e15 {
        return format!("{n:.3e}");
    }
    if n.abs() >= 1.0 {
        return group(&format!("{:.2}", n));
    }
    let magnitude = n.abs().log10().floor() as i32;
    trim(n, (3 - magnitude).clamp(0, 12) as usize)
}

/// Round to 12 significant digits: far below a cent on any bill, and free of binary float
/// noise, so 25.0075 prints as `25.0075` and not `25.007499999999997`.
pub fn round_noise(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { 0.0 } else { x };
    }
    // a whole number of at most 12 digits is its own 12-digit rounding (what the formatting
    // and parsing below give back, bit for bit, without them: a long history's row lengths
    // are whole seconds)
    if x.fract() == 0.0 && x.abs() < 1e12 {
        return x;
    }
    round_12(x).unwrap_or_else(|| format!("{x:.11e}").parse().unwrap_or(x))
}

/// 10^0 ..= 10^22, each exact in a binary float.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// [`round_noise`]'s `format!("{x:.11e}").parse()` of `x` (finite, not zero) by integer
/// arithmetic: its 12 significant digits D (x / 10^p rounded to the nearest whole number, exactly,
/// in 128 bits), then D · 10^p rounded once (D and 10^p exact in a float: the correctly rounded
/// value the parse gives). `None` where it cannot say: a tie (which the formatting breaks its
/// own way), a subnormal, a power p past ±22 (|x| under 1e-11 or past 1e33) or 128 bits.
fn round_12(x: f64) -> Option<f64> {
    /// `v` · 2^`s`, where it fits.
    fn shl(v: u128, s: i32) -> Option<u128> {
        (s <= 0 || (s < 128 && v.leading_zeros() >= s as u32)).then(|| v << s.max(0))
    }
    let bits = x.abs().to_bits();
    let exp = (bits >> 52) as i32;
    if exp == 0 {
        return None;
    }
    // |x| = m · 2^k exactly
    let m = u128::from((bits & ((1 << 52) - 1)) | (1 << 52));
    let k = exp - 1075;
    let mut e = x.abs().log10().floor() as i32;
    for _ in 0..3 {
        let p = e - 11;
        if !(-22..=22).contains(&p) {
            return None;
        }
        let ten = 10u128.pow(p.unsigned_abs());
        // |x| / 10^p = num / den
        let (num, den) = if p >= 0 {
            (shl(m, k)?, shl(ten, -k)?)
        } else {
            (shl(m.checked_mul(ten)?, k)?, shl(1, -k)?)
        };
        let (q, r) = (num / den, num % den);
        if q < 100_000_000_000 {
            e -= 1;
            continue;
        }
        if q >= 1_000_000_000_000 {
            e += 1;
            continue;
        }
        let d = match r.cmp(&(den - r)) {
            std::cmp::Ordering::Less => q,
            std::cmp::Ordering::Greater => q + 1,
            std::cmp::Ordering::Equal => return None,
        } as f64;
        let v = if p >= 0 {
            d * POW10[p as usize]
        } else {
            d / POW10[p.unsigned_abs() as usize]
        };
        return Some(if x < 0.0 { -v } else { v });
    }
    None
}

/// Render seconds as a humane duration, e.g. `3h6m`, `90s` → `1m30s`, `0.5s`.
pub fn format_seconds(seconds: f64) -> String {
    if !(seconds.is_finite() && seconds >= 1.0) || seconds.fract() != 0.0 {
        return format!("{}s", trim(seconds, 3));
    }
    let mut s = seconds as u64;
    let mut out = String::new();
    for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if s >= size {
            out.push_str(&format!("{}{unit}", s / size));
            s %= size;
        }
    }
    out
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
        assert_eq!(money(9_999_999_999_999.99), "9,999,999,999,999.99");
        assert_eq!(money(657_762_120_110_000_046_080.0), "6.578e20");
        // Half a cent rounds up on the decimal value, though 18.235 is 18.2349999… in binary.
        assert_eq!(money(18.235), "18.24");
        assert_eq!(money(24.625), "24.63");
        assert_eq!(money(0.999996), "1.00");
        assert_eq!(money(-0.0015), "-0.0015");
    }

    #[test]
    fn printed_parts_add_up_to_the_printed_total() {
        // Naive rounding prints 388.37 + 54.24 + 70.98 = 513.59 against a total of 513.58.
        let (total, parts) = money_adding_up(&[388.368, 54.2376, 70.9776], 513.5832);
        assert_eq!(total, "513.58");
        assert_eq!(parts, ["388.37", "54.24", "70.97"]);
        // A single part equal to the total prints as the total (it printed 18.23 against 18.24).
        let (total, parts) = money_adding_up(&[18.235, 0.0, 0.0], 18.235);
        assert_eq!((total.as_str(), parts[0].as_str()), ("18.24", "18.24"));
        assert_eq!(parts[1], "0.00");
        // Under $1 the total and parts keep money's extra digits (0.175, not 0.17 or 0.18).
        let (total, parts) = money_adding_up(&[0.175, 0.0], 0.175);
        assert_eq!((total.as_str(), parts[0].as_str()), ("0.175", "0.175"));
        let (total, parts) = money_adding_up(&[0.1, 0.0625, 0.0125], 0.175);
        assert_eq!(total, "0.175");
        assert_eq!(parts, ["0.10", "0.0625", "0.0125"]);
        // Past ten trillion there are no cents to add up: every amount prints as a float.
        let (total, parts) = money_adding_up(&[6.5e20, 7.7e18, 0.0], 6.577e20);
        assert_eq!(
            (total.as_str(), parts[0].as_str()),
            ("6.577e20", "6.500e20")
        );
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
        assert_eq!(count(1234.56), "1,234.56");
        assert_eq!(count(6.762), "6.76");
        assert_eq!(count(1.009), "1.01");
        assert_eq!(count(0.007943), "0.007943");
    }

    /// [`round_noise`], [`money`] and [`count`] as they were written before issue 33 item 6
    /// (formatting, then parsing or grouping the text): the references the faster ones are
    /// checked against.
    fn round_noise_by_text(x: f64) -> f64 {
        if x == 0.0 || !x.is_finite() {
            return if x == 0.0 { 0.0 } else { x };
        }
        format!("{x:.11e}").parse().unwrap_or(x)
    }

    fn group_by_text(s: &str) -> String {
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
            if i > 0 && (int.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        match frac {
            Some(f) => format!("{sign}{out}.{f}"),
            None => format!("{sign}{out}"),
        }
    }

    fn money_by_text(usd: f64) -> String {
        if usd.abs() >= EXACT_CENTS {
            return format!("{usd:.3e}");
        }
        let decimals = money_decimals(usd);
        let scale = 10f64.powi(decimals as i32);
        let units = (usd * scale).round();
        if units == 0.0 {
            return "0.00".to_string();
        }
        let s = trim(units / scale, decimals);
        if s.split_once('.').is_none_or(|(_, f)| f.len() < 2) {
            group_by_text(&format!("{:.2}", units / scale))
        } else {
            group_by_text(&s)
        }
    }

    fn count_by_text(n: f64) -> String {
        if n == n.round() && n.abs() < 1e15 {
            return group_by_text(&format!("{:.0}", n));
        }
        count(n)
    }

    /// Values of every magnitude: random bits, random decimals of 1 to 17 digits at powers
    /// 10^-15 to 10^20, whole numbers, halves and their neighbours, both signs.
    fn samples(n: usize) -> Vec<f64> {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = vec![0.5, 1.5, 2.5, 0.125, 1e11 + 0.5, 999_999_999_999.5, -0.0];
        for _ in 0..n {
            let r = next();
            let v = match r % 6 {
                0 => f64::from_bits(next()),
                1 => {
                    (next() % 100_000_000_000_000_000) as f64
                        * 10f64.powi((next() % 36) as i32 - 20)
                }
                2 => (next() % 1_000_000_000) as f64 / 100.0,
                3 => (next() % 2_000_000_000_000_000) as f64,
                4 => f64::from_bits(
                    f64::to_bits((next() % 10_000_000) as f64 / 1000.0)
                        .wrapping_add(next() % 3)
                        .wrapping_sub(1),
                ),
                _ => (next() % 10_000) as f64 * 10f64.powi((next() % 30) as i32 - 15) + 0.5,
            };
            out.push(if r & (1 << 40) != 0 { -v } else { v });
        }
        out
    }

    #[test]
    fn fast_figures_are_the_texts_ones() {
        for x in samples(300_000) {
            let (a, b) = (round_noise(x), round_noise_by_text(x));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x:e}: {a:e} {b:e}"
            );
            if x.is_finite() {
                assert_eq!(money(x), money_by_text(x), "{x:e}");
                assert_eq!(count(x), count_by_text(x), "{x:e}");
                assert_eq!(group(&format!("{x:.3}")), group_by_text(&format!("{x:.3}")));
            }
        }
    }

    #[test]
    fn clean_removes_float_noise_only() {
        assert_eq!(round_noise(0.0016150000000000001), 0.001615);
        assert_eq!(round_noise(25.007499999999997), 25.0075);
        assert_eq!(round_noise(513.5832), 513.5832);
        assert_eq!(round_noise(-0.0015), -0.0015);
        assert_eq!(round_noise(1e-9 * 3.0), 3e-9);
        assert_eq!(round_noise(0.0), 0.0);
    }

    #[test]
    fn formats_seconds_humanely() {
        assert_eq!(format_seconds(11160.0), "3h6m");
        assert_eq!(format_seconds(90.0), "1m30s");
        assert_eq!(format_seconds(0.5), "0.5s");
    }
}
