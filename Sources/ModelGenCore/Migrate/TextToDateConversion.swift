/// Text becoming a date in a migration: the text must be an ISO 8601 date and time,
///
///     YYYY-MM-DD(T| )HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]
///
/// (surrounding spaces ignored; no zone means UTC; a real day of the month, hours 00–23, minutes
/// and seconds 00–59, a zone offset of at most 14:59; the instant, in UTC, from 0001-01-01 to
/// the end of 9999, the range SQLite's date functions span). Apps that kept
/// dates as text (`2017-06-07T18:11:11.297Z`, what `ISO8601DateFormatter` writes) convert
/// exactly; any other text stops the migration through the preflight. Both engines accept the
/// same texts: each test below spells the whole grammar out rather than trusting the engine's
/// own date parser, which accepts more (SQLite: Julian day numbers, `now`, a 30th of February;
/// PostgreSQL: `24:00:00`, `+15:00`, words).
enum TextToDateConversion {
    /// SQLite: true for a text value that is not such a date.
    static func sqliteInvalid(_ column: String) -> String {
        let text = "trim(\(column))"
        let tail = "substr(\(text), 20)"
        let zone = "ltrim(\(tail), '.0123456789')"
        let fraction = sqliteFraction(text)
        let digit = "[0-9]"
        let dateTime =
            "\(digit)\(digit)\(digit)\(digit)-\(digit)\(digit)-\(digit)\(digit)[T ]\(digit)\(digit):\(digit)\(digit):\(digit)\(digit)"
        let valid = [
            "substr(\(text), 1, 19) GLOB '\(dateTime)'",
            "substr(\(text), 1, 4) != '0000'",
            "(\(fraction) = '' OR (\(fraction) GLOB '.[0-9]*' AND instr(substr(\(fraction), 2), '.') = 0))",
            "(\(zone) IN ('', 'Z') OR (\(zone) GLOB '[+-][0-1][0-9]:[0-5][0-9]' AND substr(\(zone), 2, 2) <= '14'))",
            // julianday refuses hours past 23 and minutes or seconds past 59, and moves a day
            // past the month's end into the next month, which the round trip catches.
            "substr(\(text), 12, 2) <= '23'",
            // Whole seconds: julianday rounds to milliseconds, which could carry past 9999.
            "julianday(substr(\(text), 1, 19) || \(zone)) >= 1721425.5",  // 0001-01-01 00:00 UTC; NULL past 9999
            "date(julianday(substr(\(text), 1, 10))) = substr(\(text), 1, 10)",
        ]
        return "NOT coalesce(" + valid.joined(separator: " AND ") + ", 0)"
    }

    /// SQLite: the date as REAL seconds since 2001, the whole seconds from `strftime('%s')` of
    /// the text without its fraction (exact, whatever the sign) plus the fraction as written.
    static func sqliteValue(_ column: String) -> String {
        let text = "trim(\(column))"
        let zone = "ltrim(substr(\(text), 20), '.0123456789')"
        return
            "(CAST(strftime('%s', substr(\(text), 1, 19) || \(zone)) AS REAL) - 978307200 + CAST('0' || \(sqliteFraction(text)) AS REAL))"
    }

    /// The `.fraction` of a trimmed text: what follows the seconds up to the zone.
    private static func sqliteFraction(_ text: String) -> String {
        let tail = "substr(\(text), 20)"
        return "substr(\(tail), 1, length(\(tail)) - length(ltrim(\(tail), '.0123456789')))"
    }

    /// PostgreSQL: true for a text value that is not such a date. A `CASE`, so that each test
    /// runs only on text the ones before let through (a cast of a bad number would throw).
    static func postgresInvalid(_ column: String) -> String {
        let text = "trim(\(column))"
        func number(_ start: Int, _ length: Int) -> String { "substr(\(text), \(start), \(length))::int" }
        let lastDay =
            "extract(day from make_date(\(number(1, 4)), \(number(6, 2)), 1) + interval '1 month' - interval '1 day')"
        let offset = "right(\(text), 6)"
        let whole = postgresValue("regexp_replace(\(column), '\\.[0-9]+', '')")
        let tests = [
            "\(text) !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$'",
            "\(number(1, 4)) = 0 OR \(number(6, 2)) NOT BETWEEN 1 AND 12",
            "\(number(9, 2)) NOT BETWEEN 1 AND \(lastDay)",
            "\(number(12, 2)) > 23 OR \(number(15, 2)) > 59 OR \(number(18, 2)) > 59",
            "\(text) ~ '[+-][0-9]{2}:[0-9]{2}$' AND (substr(\(offset), 2, 2)::int > 14 OR right(\(offset), 2)::int > 59)",
            // Whole seconds, as on SQLite: rounding to microseconds could carry past 9999.
            "\(whole) < TIMESTAMPTZ '0001-01-01 00:00:00+00' OR \(whole) >= TIMESTAMPTZ '10000-01-01 00:00:00+00'",
        ]
        return "CASE " + tests.map { "WHEN \($0) THEN TRUE " }.joined() + "ELSE FALSE END"
    }

    /// PostgreSQL: the text as a `timestamptz`, UTC where it names no zone.
    static func postgresValue(_ column: String) -> String {
        let text = "trim(\(column))"
        return
            "CASE WHEN \(text) ~ '(Z|[+-][0-9]{2}:[0-9]{2})$' THEN \(text)::timestamptz ELSE \(text)::timestamp AT TIME ZONE 'UTC' END"
    }
}
