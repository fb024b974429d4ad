//! Civil dates from Unix time, for record tags and log names (no time zone:
//! UTC, as PGN's `Date` and the engine log use it).

/// The UTC date of `unix_secs` as year, month and day, joined by `sep`
/// (`2026.11.30` for PGN, `2026-11-30` for file names).
pub fn date(unix_secs: u64, sep: char) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = (unix_secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}{sep}{m:02}{sep}{d:02}")
}

#[cfg(test)]
mod tests {
    use super::date;

    #[test]
    fn dates_from_unix_time() {
        assert_eq!(date(0, '.'), "1970.01.01");
        assert_eq!(date(951_782_400, '-'), "2000-02-29");
        assert_eq!(date(1_795_996_800, '.'), "2026.11.30");
    }
}
