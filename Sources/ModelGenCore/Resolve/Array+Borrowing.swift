extension Array {
    /// `compactMap` that hands each element to `transform` in place, without copying it out of the
    /// array first (the syntax structs are large; copying them costs a retain per field).
    func compactMapBorrowing<T>(_ transform: (Element) -> T?) -> [T] {
        withUnsafeBufferPointer { buffer in
            var result: [T] = []
            result.reserveCapacity(buffer.count)
            for index in buffer.indices {
                if let value = transform(buffer[index]) { result.append(value) }
            }
            return result
        }
    }
}
