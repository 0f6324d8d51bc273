import GeneratedModels
import Testing

@testable import ModelGenRuntime

@Suite struct SortedArrayTests {
    struct SamplePerson: Equatable {
        var last: String
        var first: String
    }

    @Test func staysSortedThroughInsertsAndRemovals() {
        var numbers = SortedArray([5, 1, 4], by: <)
        #expect(numbers.array == [1, 4, 5])
        let positions = [numbers.insert(3), numbers.insert(9), numbers.insert(0)]
        #expect(positions == [1, 4, 0])
        #expect(numbers.array == [0, 1, 3, 4, 5, 9])
        #expect(numbers.firstIndex(of: 4) == 3)
        #expect(numbers.firstIndex(of: 7) == nil)
        let removed = [numbers.remove(4), numbers.remove(4)]
        #expect(removed == [true, false])
        #expect(numbers.array == [0, 1, 3, 5, 9])
        #expect(numbers[2] == 3 && numbers.count == 5)
    }

    @Test func equalKeysKeepInsertionOrder() {
        let people = [
            SamplePerson(last: "Smith", first: "Ann"), SamplePerson(last: "Doe", first: "Jo"),
            SamplePerson(last: "Smith", first: "Bob"),
        ]
        var sorted = SortedArray(people, by: { $0.last < $1.last })
        #expect(sorted.map(\.first) == ["Jo", "Ann", "Bob"])
        sorted.insert(SamplePerson(last: "Smith", first: "Cy"))
        #expect(sorted.map(\.first) == ["Jo", "Ann", "Bob", "Cy"])
        #expect(sorted.equalRange(of: SamplePerson(last: "Smith", first: "")) == 1..<4)
        #expect(sorted.firstIndex(of: SamplePerson(last: "Smith", first: "Bob")) == 2)
    }

    @Test func matchesAReferenceSortOnRandomOperations() {
        var generator = SystemRandomNumberGenerator()
        var sorted = SortedArray([Int](), by: >)
        var reference: [Int] = []
        for step in 0..<2_000 {
            let value = Int.random(in: 0..<100, using: &generator)
            if step % 3 == 2, let victim = reference.randomElement(using: &generator) {
                let removed = sorted.remove(victim)
                #expect(removed)
                reference.remove(at: reference.firstIndex(of: victim)!)
            } else {
                sorted.insert(value)
                reference.append(value)
            }
            if step % 250 == 0 { #expect(sorted.array == reference.sorted(by: >)) }
        }
        #expect(sorted.array == reference.sorted(by: >))
    }
}
