import Foundation
import GeneratedModels
import Testing

@testable import ModelGenRuntime

/// Predicates through relationships (SCENARIOS.md §1 and §4): key paths through to-one
/// relationships, object identity, ANY and @count over to-many — as format strings and typed,
/// in SQL and, with unsaved changes, in memory.
@Suite struct RelationshipPredicateTests {
    static func withStore(_ model: PersistentStore.Model, on backend: Backend, _ body: (PersistentStore) throws -> Void)
        throws
    {
        try TemporaryStore.with(model, on: backend) { store, _ in try body(store) }
    }

    @Test(arguments: Backend.allCases) func gradeForStudentAndQuiz(_ backend: Backend) throws {
        try Self.withStore(GradeBookModel.model, on: backend) { store in
            let context = store.newContext()
            let students = (0..<3).map { index in
                Student(in: context, first_name: "S\(index)", id: UUID(), last_name: "L\(index)")
            }
            let quizzes = (0..<2).map { index in Quiz(in: context, id: UUID(), name: "Q\(index)") }
            for student in students {
                for quiz in quizzes {
                    let grade = Grade(in: context, id: UUID())
                    grade.student = student
                    grade.quiz = quiz
                    grade.points = Int32(student.first_name.count * 10 + quiz.name.count)
                }
            }
            try context.save()
            let student = students[1]
            let quiz = quizzes[0]
            let byFormat = try Grade.fetch(
                in: context,
                where: try ObjectPredicate(format: "student.id == %@ AND quiz.id == %@", student.id, quiz.id))
            let typed = try Grade.fetch(
                in: context,
                where: .related(\Grade.student, \Student.id == student.id) && .related(\Grade.quiz, \Quiz.id == quiz.id)
            )
            let template = try Grade.fetchGradeForStudentAndQuiz(STUDENT_ID: student.id, QUIZ_ID: quiz.id, in: context)
            #expect(byFormat.count == 1)
            #expect(byFormat.first?.student === student && byFormat.first?.quiz === quiz)
            #expect(typed.map(ObjectIdentifier.init) == byFormat.map(ObjectIdentifier.init))
            #expect(template.map(ObjectIdentifier.init) == byFormat.map(ObjectIdentifier.init))
            #expect(try Grade.count(in: context, where: .related(\Grade.student, \Student.last_name == "L2")) == 2)
        }
    }

    @Test(arguments: Backend.allCases) func employeesOfABusinessByIdentityAnyAndCount(_ backend: Backend) throws {
        try Self.withStore(BusinessesModel.model, on: backend) { store in
            let context = store.newContext()
            let acme = BusinessEntity(in: context)
            acme.name = "Acme"
            let globex = BusinessEntity(in: context)
            globex.name = "Globex"
            let sales = DepartmentEntity(in: context)
            sales.name = "Sales"
            let research = DepartmentEntity(in: context)
            research.name = "Research"
            acme.addToDepartments(sales)
            acme.addToDepartments(research)
            globex.addToDepartments(sales)
            for (name, business) in [("Ann", acme), ("Ben", acme), ("Cid", globex)] {
                let employee = EmployeeEntity(in: context)
                employee.name = name
                employee.business = business
            }
            try context.save()

            let byName = [ObjectSortDescriptor(\EmployeeEntity.name)]
            let formatAcme = try EmployeeEntity.fetch(
                in: context, where: try ObjectPredicate(format: "business == %@", acme), sortedBy: byName)
            let typedAcme = try EmployeeEntity.fetch(
                in: context, where: \EmployeeEntity.business == acme, sortedBy: byName)
            #expect(formatAcme.map(\.name) == ["Ann", "Ben"])
            #expect(typedAcme.map(\.name) == ["Ann", "Ben"])
            #expect(
                try EmployeeEntity.fetch(in: context, where: \EmployeeEntity.business != acme).map(\.name) == ["Cid"])

            let withResearch = try BusinessEntity.fetch(
                in: context, where: try ObjectPredicate(format: "ANY departments.name == %@", "Research"))
            #expect(withResearch.map(\.name) == ["Acme"])
            #expect(
                try BusinessEntity.fetch(
                    in: context, where: .any(\BusinessEntity.departments, \DepartmentEntity.name == "Research")
                ).map(\.name) == ["Acme"])
            let big = try BusinessEntity.fetch(in: context, where: try ObjectPredicate(format: "employees.@count >= 2"))
            #expect(big.map(\.name) == ["Acme"])
            #expect(
                try BusinessEntity.fetch(in: context, where: .count(\BusinessEntity.employees, .less, 2)).map(\.name)
                    == ["Globex"])
            #expect(
                try DepartmentEntity.fetch(in: context, where: try ObjectPredicate(format: "businesses.@count == 2"))
                    .map(\.name) == ["Sales"])

            // Unsaved changes count: Cid moves to Acme in memory.
            let cid = try #require(try EmployeeEntity.first(in: context, where: \EmployeeEntity.name == "Cid"))
            cid.business = acme
            #expect(
                try EmployeeEntity.fetch(in: context, where: \EmployeeEntity.business == acme, sortedBy: byName).map(
                    \.name) == ["Ann", "Ben", "Cid"])
            #expect(
                try BusinessEntity.fetch(in: context, where: .count(\BusinessEntity.employees, .equal, 0)).map(\.name)
                    == ["Globex"])
            // An unsaved business is compared by identity in memory.
            let initech = BusinessEntity(in: context)
            cid.business = initech
            #expect(
                try EmployeeEntity.fetch(in: context, where: \EmployeeEntity.business == initech).map(\.name) == ["Cid"]
            )
        }
    }

    @Test(arguments: Backend.allCases) func deletingADepartmentNullifiesEmployeesAndBusinesses(_ backend: Backend)
        throws
    {
        try Self.withStore(BusinessesModel.model, on: backend) { store in
            let context = store.newContext()
            let acme = BusinessEntity(in: context)
            let sales = DepartmentEntity(in: context)
            sales.name = "Sales"
            acme.addToDepartments(sales)
            let ann = EmployeeEntity(in: context)
            ann.department = sales
            ann.business = acme
            try context.save()
            context.delete(sales)
            try context.save()
            #expect(ann.department == nil)
            #expect(acme.departments.isEmpty)
            let fresh = store.newContext()
            #expect(try EmployeeEntity.count(in: fresh) == 1)
            #expect(try BusinessEntity.first(in: fresh)?.departments.isEmpty == true)
            #expect(try EmployeeEntity.first(in: fresh)?.department == nil)
        }
    }

    /// Linking two saved objects through a many-to-many relationship is a change by itself:
    /// the save writes the join row (it used to see no change and write nothing), and other
    /// contexts hear of it.
    @Test(arguments: Backend.allCases) func linkingSavedObjectsManyToManyIsSaved(_ backend: Backend) throws {
        try Self.withStore(BusinessesModel.model, on: backend) { store in
            let setup = store.newContext()
            BusinessEntity(in: setup).name = "Acme"
            DepartmentEntity(in: setup).name = "Sales"
            try setup.save()
            let watcher = store.newContext()
            watcher.automaticallyMergesChangesFromStore = true
            let watched = try #require(try BusinessEntity.first(in: watcher))
            #expect(watched.departments.isEmpty)

            let context = store.newContext()
            let acme = try #require(try BusinessEntity.first(in: context))
            let sales = try #require(try DepartmentEntity.first(in: context))
            acme.addToDepartments(sales)
            #expect(context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)
            let fresh = store.newContext()
            #expect(try BusinessEntity.first(in: fresh)?.departments.map(\.name) == ["Sales"])
            #expect(
                try BusinessEntity.first(in: watcher)?.departments.map(\.name) == ["Sales"],
                "merged into the other context")

            acme.removeFromDepartments(sales)
            try context.save()
            let later = store.newContext()
            #expect(try DepartmentEntity.first(in: later)?.businesses.isEmpty == true)
        }
    }
}
