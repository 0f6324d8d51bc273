import CLibPQ
import Foundation
import ModelGenRuntime

/// The PostgreSQL baseline of `runtime --engine postgres`: the same work with libpq the fastest
/// way it allows — statements prepared once, writes sent in pipelines inside one transaction,
/// results in binary, each row's values kept in Swift values (an array of structs).
final class PostgresBaseline: RuntimeBaseline {
    private let connection: OpaquePointer
    private var rowIDs: [Int64] = []
    private(set) var keySink: Int64 = 0
    private(set) var checksumOfQuery = 0.0
    /// The rows of the last fetch that keeps them, as an application keeps them.
    private(set) var rows: [BenchRow] = []

    static let pipelineLength = 256

    init(connectionString: String, ddl: String) throws {
        guard let opened = PQconnectdb(connectionString), PQstatus(opened) == CONNECTION_OK else {
            throw DatabaseError(.postgres, "the baseline cannot connect")
        }
        connection = opened
        try execute("SET client_min_messages = warning")
        try execute(ddl)
        try prepare(
            "insert",
            #"INSERT INTO "item" ("_entity", "title", "quantity", "price", "created", "active") VALUES (1, $1, $2, $3, $4, $5) RETURNING "_pk""#,
            5)
        try prepare(
            "all",
            #"SELECT "_pk", "_entity", "_version", "title", "quantity", "price", "created", "active" FROM "item" WHERE "_entity" IN (1) ORDER BY "_pk""#,
            0)
        try prepare(
            "query",
            #"SELECT "_pk", "_entity", "_version", "title", "quantity", "price", "created", "active" FROM "item" WHERE "_entity" IN (1) AND "quantity" >= $1 AND "active" = $2 ORDER BY "price" DESC, "_pk" LIMIT 1000"#,
            2)
        try prepare("update", #"UPDATE "item" SET "_version" = "_version" + 1, "quantity" = $1 WHERE "_pk" = $2"#, 2)
        try prepare("delete", #"DELETE FROM "item" WHERE "_pk" = $1"#, 1)
    }

    deinit { PQfinish(connection) }

    private func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw DatabaseError(.postgres, String(cString: PQerrorMessage(connection)), sql: sql)
        }
    }

    private func prepare(_ name: String, _ sql: String, _ count: Int32) throws {
        let result = PQprepare(connection, name, sql, count, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw DatabaseError(.postgres, String(cString: PQerrorMessage(connection)), sql: sql)
        }
    }

    // MARK: - Binary values

    private static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    static func integer(_ result: OpaquePointer?, _ row: Int32, _ column: Int32) -> Int64 {
        let length = Int(PQgetlength(result, row, column))
        let value = UnsafeRawPointer(PQgetvalue(result, row, column)!)
        var number: Int64 = 0
        for index in 0..<length { number = number << 8 | Int64(value.load(fromByteOffset: index, as: UInt8.self)) }
        let unused = Int64(64 - 8 * length)
        return unused > 0 ? (number << unused) >> unused : number
    }

    /// Sends `count` executions of `name`, each with the parameters `fill` writes, in pipelines
    /// of `pipelineLength`; `row` sees each result.
    private func pipeline(
        _ name: String, count: Int, _ fill: (Int, inout [UInt8], inout [Int32]) -> Void,
        row: (OpaquePointer?) -> Void = { _ in }
    ) {
        var start = 0
        var buffer: [UInt8] = []
        var lengths: [Int32] = []
        while start < count {
            let end = min(start + Self.pipelineLength, count)
            precondition(PQenterPipelineMode(connection) == 1)
            for index in start..<end {
                buffer.removeAll(keepingCapacity: true)
                lengths.removeAll(keepingCapacity: true)
                fill(index, &buffer, &lengths)
                let formats = [Int32](repeating: 1, count: lengths.count)
                buffer.withUnsafeBufferPointer { bytes in
                    let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                    var offset = 0
                    var pointers: [UnsafePointer<CChar>?] = []
                    for length in lengths {
                        pointers.append(length < 0 ? nil : base + offset)
                        offset += max(0, Int(length))
                    }
                    precondition(
                        PQsendQueryPrepared(connection, name, Int32(lengths.count), pointers, lengths, formats, 1) == 1)
                }
            }
            precondition(PQpipelineSync(connection) == 1)
            var synced = false
            while !synced {
                guard let result = PQgetResult(connection) else { continue }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_SYNC: synced = true
                case PGRES_TUPLES_OK, PGRES_COMMAND_OK: row(result)
                default: preconditionFailure(String(cString: PQresultErrorMessage(result)))
                }
                PQclear(result)
            }
            PQexitPipelineMode(connection)
            start = end
        }
    }

    // MARK: - The phases

    func insert(count: Int, base: Date) {
        try! execute("BEGIN")
        rowIDs.reserveCapacity(count)
        pipeline("insert", count: count) { index, buffer, lengths in
            let title = Array("Item \(index)".utf8)
            buffer += title
            lengths.append(Int32(title.count))
            Self.append(UInt64(bitPattern: Int64(index)), to: &buffer)
            Self.append((Double(index) * 0.5).bitPattern, to: &buffer)
            let seconds = base.addingTimeInterval(Double(index)).timeIntervalSinceReferenceDate
            Self.append(UInt64(bitPattern: Int64((seconds * 1_000_000).rounded()) + 31_622_400_000_000), to: &buffer)
            buffer.append(index % 2 == 0 ? 1 : 0)
            lengths += [8, 8, 8, 1]
        } row: { result in
            rowIDs.append(Self.integer(result, 0, 0))
        }
        try! execute("COMMIT")
    }

    private func read(_ result: OpaquePointer?, keepingRows: Bool = true) -> Double {
        let count = PQntuples(result)
        rows.removeAll(keepingCapacity: true)
        if keepingRows { rows.reserveCapacity(Int(count)) }
        var keys: Int64 = 0
        var sum = 0.0
        for index in 0..<count {
            keys &+=
                Self.integer(result, index, 0)
                &+ (PQgetisnull(result, index, 1) == 1 ? 0 : Self.integer(result, index, 1))
                &+ Self.integer(result, index, 2)
            let title = String(
                decoding: UnsafeRawBufferPointer(
                    start: PQgetvalue(result, index, 3), count: Int(PQgetlength(result, index, 3))), as: UTF8.self)
            let quantity = Self.integer(result, index, 4)
            let price = Double(bitPattern: UInt64(bitPattern: Self.integer(result, index, 5)))
            let created: Date? =
                PQgetisnull(result, index, 6) == 1
                ? nil
                : Date(
                    timeIntervalSinceReferenceDate: Double(Self.integer(result, index, 6) - 31_622_400_000_000)
                        / 1_000_000)
            let active = Self.integer(result, index, 7) != 0
            if keepingRows {
                rows.append(
                    BenchRow(
                        key: Self.integer(result, index, 0), title: title, quantity: quantity, price: price,
                        created: created, active: active))
            }
            sum += Double(title.utf8.count) + Double(quantity) + price
            sum += (created?.timeIntervalSinceReferenceDate ?? 0) + (active ? 1 : 0)
        }
        keySink &+= keys
        return sum
    }

    func fetchAll(keepingRows: Bool) -> Double {
        let result = PQexecPrepared(connection, "all", 0, nil, nil, nil, 1)
        defer { PQclear(result) }
        precondition(PQresultStatus(result) == PGRES_TUPLES_OK)
        return read(result, keepingRows: keepingRows)
    }

    func fetchQuery(threshold: Int64) -> Int {
        var buffer: [UInt8] = []
        Self.append(UInt64(bitPattern: threshold), to: &buffer)
        buffer.append(1)
        let result = buffer.withUnsafeBufferPointer { bytes -> OpaquePointer? in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            return PQexecPrepared(connection, "query", 2, [base, base + 8], [8, 1], [1, 1], 1)
        }
        defer { PQclear(result) }
        precondition(PQresultStatus(result) == PGRES_TUPLES_OK)
        checksumOfQuery = read(result)
        return Int(PQntuples(result))
    }

    func updateAll() {
        try! execute("BEGIN")
        pipeline("update", count: rowIDs.count) { index, buffer, lengths in
            Self.append(UInt64(bitPattern: Int64(index) + 1), to: &buffer)
            Self.append(UInt64(bitPattern: rowIDs[index]), to: &buffer)
            lengths += [8, 8]
        }
        try! execute("COMMIT")
    }

    func deleteAll() {
        try! execute("BEGIN")
        pipeline("delete", count: rowIDs.count) { index, buffer, lengths in
            Self.append(UInt64(bitPattern: rowIDs[index]), to: &buffer)
            lengths.append(8)
        }
        try! execute("COMMIT")
    }
}
