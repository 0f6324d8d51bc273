import CLibPQ

/// Writes sent without a round trip each: a save queues its INSERTs, UPDATEs and DELETEs, and they
/// go to the server in libpq's pipeline mode, a few hundred per network round trip, their results
/// read afterwards in order. Any statement run the ordinary way first sends what is queued, so
/// statements still run in the order they were issued.
struct PostgresCommand {
    /// The prepared statement's name; `nil` for a statement without parameters sent as it is.
    let name: String?
    let sql: String
    /// The parameter values, each followed by a NUL, at `offsets` (`nil` for NULL).
    let buffer: [UInt8]
    let offsets: [Int?]
    let lengths: [Int32]
    let formats: [Int32]
}

extension PostgresConnection {
    /// Commands per pipeline: small enough that neither side's socket buffer fills while the
    /// other waits (libpq's blocking mode).
    static let pipelineLength = 256

    /// Sends the queued commands and reads their results.
    /// - Returns: the rows each command changed, in order.
    /// - Throws: the first command's error; the commands after it are not run (the transaction
    ///   is then aborted, and the save rolls it back).
    @discardableResult
    func flushPipeline() throws(DatabaseError) -> [Int] {
        let commands = pending
        pending = []
        var counts: [Int] = []
        counts.reserveCapacity(commands.count)
        var start = 0
        while start < commands.count {
            let chunk = commands[start..<min(start + Self.pipelineLength, commands.count)]
            let started = tracer == nil ? nil : ContinuousClock.now
            try runPipeline(chunk, &counts)
            // Pipelined commands share one round trip: each is reported with an equal part of it.
            if let tracer, let started {
                let share = (ContinuousClock.now - started) / chunk.count
                for command in chunk { tracer.handler(SQLTraceEvent(sql: command.sql, duration: share)) }
            }
            start = chunk.endIndex
        }
        return counts
    }

    /// Ends the transaction: with queued commands, the COMMIT goes in their pipeline (one round
    /// trip for the save's last writes and its commit).
    func commit() throws(DatabaseError) {
        guard !pending.isEmpty else { return try execute("COMMIT") }
        pending.append(PostgresCommand(name: nil, sql: "COMMIT", buffer: [], offsets: [], lengths: [], formats: []))
        try flushPipeline()
    }

    private func runPipeline(_ chunk: ArraySlice<PostgresCommand>, _ counts: inout [Int]) throws(DatabaseError) {
        guard PQenterPipelineMode(handle) == 1 else { throw error(nil, sql: chunk.first?.sql) }
        defer { PQexitPipelineMode(handle) }
        var failure: DatabaseError?
        for command in chunk {
            guard let name = command.name else {
                if PQsendQueryParams(handle, command.sql, 0, nil, nil, nil, nil, 1) != 1 {
                    failure = error(nil, sql: command.sql)
                    break
                }
                continue
            }
            let sent = command.buffer.withUnsafeBufferPointer { bytes in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                let pointers = command.offsets.map { offset in offset.map { base + $0 } }
                return PQsendQueryPrepared(
                    handle, name, Int32(command.lengths.count), pointers, command.lengths, command.formats, 1)
            }
            if sent != 1 {
                failure = error(nil, sql: command.sql)
                break
            }
        }
        if PQpipelineSync(handle) != 1, failure == nil { failure = error(nil, sql: chunk.first?.sql) }
        var index = chunk.startIndex
        var synced = false
        while !synced {
            guard let result = PQgetResult(handle) else {
                // Between the results of two commands; none at all once the connection is gone.
                if !isConnected {
                    failure = failure ?? error(nil, sql: nil)
                    break
                }
                continue
            }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_PIPELINE_SYNC:
                synced = true
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                counts.append(Int(String(cString: PQcmdTuples(result))) ?? 0)
                index += 1
            case PGRES_PIPELINE_ABORTED:
                counts.append(0)
                index += 1
            default:
                if failure == nil { failure = error(result, sql: index < chunk.endIndex ? chunk[index].sql : nil) }
                counts.append(0)
                index += 1
            }
        }
        if let failure { throw failure }
    }
}
