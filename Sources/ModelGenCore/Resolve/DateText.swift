/// Reads the human-readable dates Xcode writes next to date intervals
/// (`2013-04-23 12:00:00 +0000`) as seconds since 2001-01-01 00:00:00 UTC.
enum DateText {
    static func referenceInterval(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].split(separator: ":").compactMap { Int($0) }
        guard date.count == 3, time.count == 3,
            (1...12).contains(date[1]), (1...31).contains(date[2]),
            (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        var offsetSeconds = 0
        if parts.count >= 3 {
            let zone = Array(parts[2].utf8)
            guard zone.count == 5, zone[0] == 0x2B || zone[0] == 0x2D,
                let hours = Int(String(decoding: zone[1...2], as: UTF8.self)),
                let minutes = Int(String(decoding: zone[3...4], as: UTF8.self))
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (zone[0] == 0x2D ? -1 : 1)
        }
        let days =
            daysFromCivil(year: date[0], month: date[1], day: date[2]) - daysFromCivil(year: 2001, month: 1, day: 1)
        return Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2] - offsetSeconds)
    }

    /// Seconds since 2001 of an ISO 8601 date and time, `YYYY-MM-DD(T| )HH:MM:SS[.fraction]`
    /// then `Z`, `+HH:MM`, `-HH:MM` or nothing (UTC): the grammar `TextToDateConversion` gives
    /// stored text in migrations.
    static func iso8601Interval(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard bytes[start..<start + count].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[start..<start + count], as: UTF8.self))
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[13] == 0x3A, bytes[16] == 0x3A,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            let start = index
            index += 1
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start + 1, let value = Double("0" + String(decoding: bytes[start..<index], as: UTF8.self))
            else { return nil }
            fraction = value
        }
        var offset = 0
        let zone = bytes[index...]
        if zone.count == 6, zone.first == 0x2B || zone.first == 0x2D, bytes[index + 3] == 0x3A,
            let hours = number(index + 1, 2), let minutes = number(index + 4, 2), hours <= 14, minutes <= 59
        {
            offset = (hours * 3600 + minutes * 60) * (zone.first == 0x2D ? -1 : 1)
        } else if !(zone.isEmpty || Array(zone) == [UInt8(ascii: "Z")]) {
            return nil
        }
        let reference = daysFromCivil(year: 2001, month: 1, day: 1)
        let days = daysFromCivil(year: year, month: month, day: day) - reference
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // The instant within 0001-01-01 and the end of 9999, UTC.
        guard seconds >= (daysFromCivil(year: 1, month: 1, day: 1) - reference) * 86_400,
            seconds < (daysFromCivil(year: 10_000, month: 1, day: 1) - reference) * 86_400
        else { return nil }
        return Double(seconds) + fraction
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2013-04-23 12:00:00+00` for seconds since 2001-01-01 00:00:00 UTC (fractions kept to microseconds).
    static func timestamp(referenceInterval seconds: Double) -> String {
        let reference = Double(daysFromCivil(year: 2001, month: 1, day: 1)) * 86_400
        let unix = reference + seconds
        var whole = unix.rounded(.down)
        var micros = Int(((unix - whole) * 1_000_000).rounded())
        if micros == 1_000_000 {
            whole += 1
            micros = 0
        }
        let total = Int(whole)
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
        if micros > 0 {
            let digits = String(micros)
            text += "." + String(repeating: "0", count: 6 - digits.count) + digits
        }
        return text + "+00"
    }

    /// The proleptic Gregorian date of a day number since 1970-01-01 (Howard Hinnant's algorithm).
    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
