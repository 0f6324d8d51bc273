import TestSupport
import Testing

/// The unified diffs golden tests print when output differs from its reference.
@Suite struct UnifiedDiffTests {
    static let ten = (1...10).map(String.init).joined(separator: "\n")

    @Test func oneChangedLineIsOneHunkWithThreeLinesOfContext() {
        let changed = Self.ten.replacingOccurrences(of: "\n5\n", with: "\nfive\n")
        #expect(
            UnifiedDiff.render(expected: Self.ten, actual: changed) == """
                --- expected
                +++ actual
                @@ -2,7 +2,7 @@
                 2
                 3
                 4
                -5
                +five
                 6
                 7
                 8

                """)
        #expect(UnifiedDiff.render(expected: Self.ten, actual: Self.ten).isEmpty)
    }

    @Test func changesAtTheEndsAndFarApartAreSeparateHunks() {
        let thirty = (1...30).map(String.init)
        var changed = thirty
        changed.remove(at: 0)
        changed.append("31")
        let diff = UnifiedDiff.render(expected: thirty.joined(separator: "\n"), actual: changed.joined(separator: "\n"))
        #expect(
            diff == """
                --- expected
                +++ actual
                @@ -1,4 +1,3 @@
                -1
                 2
                 3
                 4
                @@ -28,3 +27,4 @@
                 28
                 29
                 30
                +31

                """)
    }

    @Test func textsThatShareLittleGetOneHunkBetweenTheirCommonEnds() {
        let diff = UnifiedDiff.render(expected: "a\nb\nc\nz", actual: "a\nx\ny\nz", maximumEdits: 1)
        #expect(diff == "--- expected\n+++ actual\n@@ -1,4 +1,4 @@\n a\n-b\n-c\n+x\n+y\n z\n")
    }
}
