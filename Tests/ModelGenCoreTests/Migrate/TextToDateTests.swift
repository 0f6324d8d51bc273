import Foundation
import TestSupport
import Testing

@testable import ModelGenCore

/// Text becoming a date in a migration (`TextToDateConversion`), on both engines, against a
/// brute-force reference: random ISO 8601 texts whose value is computed here by counting days
/// year by year, and texts each engine's own date parser would take but the grammar does not.
/// Both engines and `DateText.iso8601Interval` (`--default`) must refuse exactly the bad ones
/// and convert every good one to the same instant.
@Suite struct TextToDateTests {
    struct Sample {
        var text: String
        /// Seconds since 2001-01-01 UTC, or nil for a text that must be refused.
        var seconds: Double?
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func monthLengths(_ year: Int) -> [Int] {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    }

    /// Days from 2001-01-01 to the date, counted a year and a month at a time.
    static func days(_ year: Int, _ month: Int, _ day: Int) -> Int {
        var total = 0
        if year >= 2001 {
            for y in 2001..<year { total += isLeap(y) ? 366 : 365 }
        } else {
            for y in year..<2001 { total -= isLeap(y) ? 366 : 365 }
        }
        return total + monthLengths(year)[..<(month - 1)].reduce(0, +) + day - 1
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static func samples() -> [Sample] {
        var random = SplitMix(seed: 20_261_207)
        var samples: [Sample] = []
        for index in 0..<1_500 {
            let year =
                index % 5 == 0 ? Int.random(in: 1...9999, using: &random) : Int.random(in: 1900...2100, using: &random)
            let month = Int.random(in: 1...12, using: &random)
            let day = Int.random(in: 1...monthLengths(year)[month - 1], using: &random)
            let (hour, minute, second) = (
                Int.random(in: 0...23, using: &random), Int.random(in: 0...59, using: &random),
                Int.random(in: 0...59, using: &random)
            )
            var text = String(repeating: "0", count: 4 - String(year).count) + "\(year)-\(two(month))-\(two(day))"
            text += (Bool.random(using: &random) ? "T" : " ") + "\(two(hour)):\(two(minute)):\(two(second))"
            var seconds = Double(days(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
            if Bool.random(using: &random) {
                let digits = (0..<Int.random(in: 1...9, using: &random)).map { _ in
                    String(Int.random(in: 0...9, using: &random))
                }.joined()
                text += "." + digits
                seconds += Double("0." + digits)!
            }
            switch Int.random(in: 0...2, using: &random) {
            case 0: break
            case 1: text += "Z"
            default:
                let (hours, minutes) = (Int.random(in: 0...14, using: &random), Int.random(in: 0...59, using: &random))
                let sign = Bool.random(using: &random) ? 1 : -1
                text += (sign > 0 ? "+" : "-") + "\(two(hours)):\(two(minutes))"
                seconds -= Double(sign * (hours * 3600 + minutes * 60))
            }
            if index % 7 == 0 { text = " " + text + " " }
            let inRange = seconds >= Double(days(1, 1, 1) * 86_400) && seconds < Double(days(10_000, 1, 1) * 86_400)
            samples.append(Sample(text: text, seconds: inRange ? seconds : nil))
        }
        // What an engine's parser takes, or a near miss of the grammar: all refused.
        let refused = [
            "2017-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2017-04-31T10:00:00Z", "2017-00-10T10:00:00Z",
            "2017-13-10T10:00:00Z", "0000-01-01T00:00:00Z", "2017-06-07T24:00:00Z", "2017-06-07T23:60:00Z",
            "2017-06-07T23:59:60Z", "2017-06-07T18:11:11+15:00", "2017-06-07T18:11:11+14:60",
            "2017-06-07T18:11Z", "2017-06-07", "2017-06-07T18:11:11Zx", "2017-06-07T18:11:11 Z",
            "2017-06-07T18:11:11.Z", "2017-06-07T18:11:11.1.2Z", "2017-06-07t18:11:11Z", "2017-06-07T18:11:11z",
            "2017-06-07T18:11:11+0200", "2017-6-07T18:11:11Z", "now", "yesterday", "2457912.5", "12345", "",
            "2017-06-07T18:11:11.297Z garbage", "+2017-06-07T18:11:11Z", "2017/06/07 18:11:11",
            "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-00:01",
        ]
        samples += refused.map { Sample(text: $0, seconds: nil) }
        // And what is valid at the edges.
        samples += [
            Sample(text: "2016-02-29T00:00:00Z", seconds: Double(days(2016, 2, 29) * 86_400)),
            Sample(text: "2000-02-29T23:59:59Z", seconds: Double(days(2000, 2, 29) * 86_400 + 86_399)),
            Sample(text: "0001-01-01T00:00:00Z", seconds: Double(days(1, 1, 1) * 86_400)),
            Sample(
                text: "9999-12-31T23:59:59.999999Z", seconds: Double(days(9999, 12, 31) * 86_400 + 86_399) + 0.999999),
            Sample(text: "9999-12-31T09:00:00-14:59", seconds: Double(days(9999, 12, 31) * 86_400 + 32_400 + 53_940)),
            Sample(text: "0001-01-01T14:59:00+14:59", seconds: Double(days(1, 1, 1) * 86_400)),
        ]
        return samples
    }

    /// Within a microsecond, or a few units in the last place of so large a number.
    static func close(_ value: Double, _ expected: Double) -> Bool {
        abs(value - expected) <= max(1.5e-6, expected.ulp * 4)
    }

    @Test func theGrammarAgreesWithTheReference() {
        for sample in Self.samples() {
            let value = DateText.iso8601Interval(sample.text.trimmingCharacters(in: .whitespaces))
            if let expected = sample.seconds {
                #expect(value.map { Self.close($0, expected) } == true, "\(sample.text): \(String(describing: value))")
            } else {
                #expect(value == nil, "\(sample.text) should be refused")
            }
        }
    }

    @Test func sqliteRefusesAndConvertsExactly() throws {
        let samples = Self.samples()
        let database = try SQLiteDatabase()
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        for (index, sample) in samples.enumerated() {
            try database.execute("INSERT INTO t VALUES (\(index), '\(sample.text)')")
        }
        let rules = SQLDialect.sqlite.rules
        let value = rules.conversion("v", from: .text, to: .date)
        let refused = try database.rows(
            "SELECT id FROM t WHERE \(rules.inexactValues("v", from: .text, to: .date)) ORDER BY id"
        ).map { Int($0[0]!)! }
        #expect(refused == samples.indices.filter { samples[$0].seconds == nil })
        let values = try database.rows(
            "SELECT id, CAST(\(value) AS INTEGER), \(value) - CAST(\(value) AS INTEGER) FROM t WHERE NOT (\(rules.inexactValues("v", from: .text, to: .date)))"
        )
        #expect(values.count == samples.count - refused.count)
        for row in values {
            let sample = samples[Int(row[0]!)!]
            // Whole seconds and the fraction apart: SQLite prints 15 significant digits.
            let value = row[1].flatMap(Double.init).flatMap { whole in row[2].flatMap(Double.init).map { whole + $0 } }
            #expect(value.map { Self.close($0, sample.seconds!) } == true, "\(sample.text): \(row[1] ?? "NULL")")
        }
    }

    @Test func postgresRefusesAndConvertsExactly() throws {
        guard let cluster = PostgresCluster.shared() else { return }
        let samples = Self.samples()
        let (schema, _) = try cluster.freshSchema("textdate")
        let rules = SQLDialect.postgres.rules
        let rows = samples.enumerated().map { "(\($0.offset), '\($0.element.text)')" }.joined(separator: ", ")
        _ = try cluster.rows(
            "CREATE TABLE t (id integer PRIMARY KEY, v text); INSERT INTO t VALUES \(rows);", schema: schema)
        let refused = try cluster.rows(
            "SELECT id FROM t WHERE \(rules.inexactValues("v", from: .text, to: .date)) ORDER BY id", schema: schema
        ).map { Int($0[0])! }
        #expect(refused == samples.indices.filter { samples[$0].seconds == nil })
        // The conversion as the migration runs it: the column changes type in place.
        let values = try cluster.rows(
            """
            DELETE FROM t WHERE \(rules.inexactValues("v", from: .text, to: .date));
            ALTER TABLE t ALTER COLUMN v TYPE timestamptz USING \(rules.conversion("v", from: .text, to: .date));
            SELECT id, extract(epoch from v) - 978307200 FROM t;
            """, schema: schema)
        #expect(values.count == samples.count - refused.count)
        for row in values where row.count == 2 {
            let sample = samples[Int(row[0])!]
            // PostgreSQL keeps microseconds, rounding the rest.
            let value = Double(row[1])
            #expect(value.map { Self.close($0, sample.seconds!) } == true, "\(sample.text): \(row[1])")
        }
        _ = try cluster.psql("DROP SCHEMA \"\(schema)\" CASCADE;")
    }
}
