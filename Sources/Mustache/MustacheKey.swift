#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The name of a context member, interned: templates compile their names to keys and contexts
/// are built with keys, so a lookup compares two integers instead of two strings.
///
/// Names are interned for the life of the process (they are the member names of contexts, a small
/// set); make the keys a context builder uses once, as `static let`s.
public struct MustacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The name's number in the process-wide table.
    let id: Int32

    public init(_ name: String) {
        id = KeyTable.shared.intern(name)
    }

    /// The name this key stands for.
    public var name: String { KeyTable.shared.name(id) }

    public var description: String { name }
}

/// Names by number and numbers by name, shared by every template and context of the process.
private final class KeyTable: @unchecked Sendable {
    static let shared = KeyTable()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var ids: [String: Int32] = [:]
    private var names: [String] = []

    private init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    func intern(_ name: String) -> Int32 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let id = ids[name] { return id }
        let id = Int32(names.count)
        names.append(name)
        ids[name] = id
        return id
    }

    func name(_ id: Int32) -> String {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return names[Int(id)]
    }
}
