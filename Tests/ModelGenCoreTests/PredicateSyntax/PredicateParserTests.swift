import Testing

@testable import PredicateSyntax

/// The NSPredicate format grammar: each input parses to the expected canonical form, the canonical
/// form parses back to the same tree, and bad input gets an error at the right offset.
@Suite struct PredicateParserTests {
    static let canonical: [(String, String)] = [
        // Comparisons and their spellings.
        ("universe == \"Star Wars\"", "universe == \"Star Wars\""),
        ("universe = 'Star Wars'", "universe == \"Star Wars\""),
        ("a != 1", "a != 1"), ("a <> 1", "a != 1"),
        ("a < 1", "a < 1"), ("a <= 1", "a <= 1"), ("a =< 1", "a <= 1"),
        ("a > 1.5", "a > 1.5"), ("a >= -2", "a >= -2"), ("a => 0x1F", "a >= 31"),
        ("a == 0b101 OR a == 0o17", "a == 5 OR a == 15"),
        ("a == 1e3", "a == 1000.0"),
        // String operators with options; keywords in any case.
        ("name BEGINSWITH \"E\"", "name BEGINSWITH \"E\""),
        ("name beginswith[c] \"e\"", "name BEGINSWITH[c] \"e\""),
        ("name ENDSWITH[d] 'x'", "name ENDSWITH[d] \"x\""),
        ("name CONTAINS[cd] %@", "name CONTAINS[cd] %@"),
        ("name LIKE[c] \"a*b?\"", "name LIKE[c] \"a*b?\""),
        ("name MATCHES '[a-z]+'", "name MATCHES \"[a-z]+\""),
        ("name ==[c] 'x'", "name ==[c] \"x\""),
        // IN, BETWEEN, aggregates.
        ("universe IN %@", "universe IN %@"),
        ("universe IN {'A', \"B\", 'C'}", "universe IN {\"A\", \"B\", \"C\"}"),
        ("age BETWEEN {18, 65}", "age BETWEEN {18, 65}"),
        // Logic, precedence and grouping.
        ("a == 1 AND b == 2 OR c == 3", "(a == 1 AND b == 2) OR c == 3"),
        ("a == 1 AND (b == 2 OR c == 3)", "a == 1 AND (b == 2 OR c == 3)"),
        ("a == 1 && b == 2 || !(c == 3)", "(a == 1 AND b == 2) OR NOT c == 3"),
        ("NOT name BEGINSWITH[c] \"e\"", "NOT name BEGINSWITH[c] \"e\""),
        ("not not a == 1", "NOT NOT a == 1"),
        ("TRUEPREDICATE", "TRUEPREDICATE"), ("falsepredicate", "FALSEPREDICATE"),
        // Key paths, collection operators, quantifiers.
        ("student.id == %@ AND quiz.id == %@", "student.id == %@ AND quiz.id == %@"),
        ("grades.@count > 3", "grades.@count > 3"),
        ("employees.@avg.age < 40", "employees.@avg.age < 40"),
        ("ANY departments.name == 'Sales'", "ANY departments.name == \"Sales\""),
        ("SOME tags.name == 'x'", "ANY tags.name == \"x\""),
        ("ALL grades.points >= 50", "ALL grades.points >= 50"),
        ("NONE grades.points < 0", "NONE grades.points < 0"),
        // Placeholders, variables, literals.
        ("%K BEGINSWITH %@", "%K BEGINSWITH %@"),
        ("ssn == %d AND ratio > %f AND code == %ld", "ssn == %d AND ratio > %f AND code == %d"),
        ("uuid == $UUID", "uuid == $UUID"),
        ("parent.parentName == $parentName", "parent.parentName == $parentName"),
        ("$FETCH_SOURCE.name == name", "$FETCH_SOURCE.name == name"),
        ("a == nil AND b == NULL", "a == nil AND b == nil"),
        ("flag == YES AND other == false", "flag == YES AND other == NO"),
        ("true == true", "YES == YES"),
        ("SELF == %@", "SELF == %@"),
        ("#order == 1 AND #IN == 2", "order == 1 AND #IN == 2"),
        ("text == \"say \\\"hi\\\"\\n\"", "text == \"say \\\"hi\\\"\\n\""),
        ("name == 'caf\\u00e9'", "name == \"café\""),
        // Arithmetic, functions, indexes, subqueries, casts.
        ("(a + b) * 2 > c - 1", "(a + b) * 2 > c - 1"), ("a - b - c == 0", "a - b - c == 0"),
        ("a ** 2 == 4", "a ** 2 == 4"),
        ("-a < 0", "-a < 0"), ("-(a + 1) < 0", "-(a + 1) < 0"),
        ("a - (b - c) == 2 ** 3 ** 2", "a - (b - c) == 2 ** 3 ** 2"), ("(2 ** 3) ** 2 == x", "(2 ** 3) ** 2 == x"),
        ("date > now()", "date > now()"),
        ("lowercase(name) == 'x'", "lowercase(name) == \"x\""),
        (
            "items[FIRST].name == 'a' AND items[LAST].x == 1 AND items[SIZE] == 2 AND items[0].y == 3",
            "items[FIRST].name == \"a\" AND items[LAST].x == 1 AND items[SIZE] == 2 AND items[0].y == 3"
        ),
        ("SUBQUERY(employees, $e, $e.age > 30).@count > 0", "SUBQUERY(employees, $e, $e.age > 30).@count > 0"),
        ("CAST(stamp, 'NSDate') > $D", "CAST(stamp, \"NSDate\") > $D"),
    ]

    @Test(arguments: canonical.indices)
    func parsesToCanonicalFormAndBack(_ index: Int) throws {
        let (input, expected) = Self.canonical[index]
        let tree = try PredicateParser.parse(input)
        #expect(tree.description == expected, "input: \(input)")
        let reparsed = try PredicateParser.parse(tree.description)
        #expect(reparsed.description == tree.description)
    }

    @Test func comparisonsKeepTheirStructure() throws {
        let tree = try PredicateParser.parse("ANY departments.name BEGINSWITH[cd] %@")
        guard case .comparison(let comparison) = tree else {
            Issue.record("expected a comparison, got \(tree)")
            return
        }
        #expect(comparison.quantifier == .any)
        #expect(comparison.op == .beginsWith)
        #expect(comparison.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(comparison.lhs == .keyPath(root: .implicit, components: ["departments", "name"], offset: 4))
        #expect(comparison.rhs == .argument(index: 0, kind: .object))
    }

    @Test func placeholdersAreNumberedInOrder() throws {
        let tree = try PredicateParser.parse("%K == %@ AND %K < %d")
        guard case .and(let terms) = tree, case .comparison(let first) = terms[0],
            case .comparison(let second) = terms[1]
        else {
            Issue.record("unexpected tree \(tree)")
            return
        }
        #expect(first.lhs == .keyPath(root: .argument(0), components: [], offset: 0))
        #expect(first.rhs == .argument(index: 1, kind: .object))
        #expect(second.lhs == .keyPath(root: .argument(2), components: [], offset: 13))
        #expect(second.rhs == .argument(index: 3, kind: .integer))
    }

    @Test func variablesAreListedOnceInOrderWithoutSubqueryVariables() throws {
        let tree = try PredicateParser.parse(
            "student.id == $STUDENT AND quiz.id == $QUIZ OR student.id == $STUDENT AND SUBQUERY(grades, $g, $g.points > $MIN).@count > 0"
        )
        #expect(tree.variables == ["STUDENT", "QUIZ", "MIN"])
    }

    static let errors: [(String, Int, String)] = [
        ("name == ", 8, "expected an expression"),
        ("name ==", 7, "expected an expression"),
        ("name == )", 8, "expected an expression"),
        ("name", 4, "expected a comparison operator"),
        ("name BEGINSWITH[x] 'a'", 16, "unknown comparison option"),
        ("name == 'abc", 8, "unterminated string"),
        ("a == 1 AND", 10, "expected an expression"),
        ("(a == 1", 7, "expected"),
        ("a == 1)", 6, "unexpected ')'"),
        ("a == %y", 5, "unsupported placeholder"),
        ("a == $", 5, "expected a variable name"),
        ("a == 12abc", 5, "invalid number"),
        ("a ^ 1", 2, "unexpected character"),
        ("AND == 1", 0, "unexpected keyword"),
        ("a.@ == 1", 4, "expected a collection operator"),
    ]

    @Test(arguments: errors.indices)
    func badInputIsAnErrorAtTheRightOffset(_ index: Int) {
        let (input, offset, message) = Self.errors[index]
        #expect {
            _ = try PredicateParser.parse(input)
        } throws: { error in
            guard let error = error as? PredicateSyntaxError else { return false }
            #expect(error.offset == offset, "\(input): \(error)")
            #expect(error.message.contains(message), "\(input): \(error)")
            return true
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000)
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parse(deep) }
        let nots = String(repeating: "NOT ", count: 50_000) + "a == 1"
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parse(nots) }
        let minus = "a == " + String(repeating: "-", count: 50_000) + "b"
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parse(minus) }
    }

    @Test func everyOperatorHasASpelling() throws {
        for op in ComparisonOperator.allCases {
            let rhs = op == .between ? "{1, 2}" : "1"
            let tree = try PredicateParser.parse("a \(op.rawValue) \(rhs)")
            guard case .comparison(let comparison) = tree else {
                Issue.record("\(op)")
                return
            }
            #expect(comparison.op == op)
        }
    }
}
