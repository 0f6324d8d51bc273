import ExampleSupport
import Foundation
import ModelGenRuntime

// gradebook: SCENARIOS.md §1 on a store file. Students are listed (and addressed by position)
// sorted by last name, then first name; quizzes by name.

let usage = """
    usage: gradebook [--store PATH | --postgres URL] COMMAND
      add-student FIRST LAST        add a student
      add-quiz NAME                 add a quiz
      grade STUDENT QUIZ POINTS     record a score (STUDENT and QUIZ: positions in the lists)
      delete-student POSITION...    delete students by position in the sorted list
      list                          students, quizzes and grades
      students | quizzes            one list
    The store defaults to gradebook.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(program: "gradebook", defaultStore: "gradebook.sqlite", usage: usage)
let fail = commandLine.fail

@MainActor func sortedStudents(_ context: ObjectContext) throws -> [Student] {
    try Student.fetch(
        in: context, sortedBy: [ObjectSortDescriptor(\Student.last_name), ObjectSortDescriptor(\Student.first_name)])
}

@MainActor func sortedQuizzes(_ context: ObjectContext) throws -> [Quiz] {
    try Quiz.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Quiz.name)])
}

@MainActor func printStudents(_ context: ObjectContext) throws {
    let students = try sortedStudents(context)
    if students.isEmpty { print("No students.") }
    for (index, student) in students.enumerated() {
        print("\(index + 1). \(student.last_name), \(student.first_name)")
    }
}

@MainActor func printQuizzes(_ context: ObjectContext) throws {
    let quizzes = try sortedQuizzes(context)
    if quizzes.isEmpty { print("No quizzes.") }
    for (index, quiz) in quizzes.enumerated() { print("\(index + 1). \(quiz.name)") }
}

@MainActor func pick<T>(_ list: [T], _ text: String, _ what: String) -> T { commandLine.pick(list, text, what) }

do {
    let command = commandLine.command ?? ""
    let operands = commandLine.operands
    let store = try commandLine.openStore(GradeBookModel.model)
    let context = store.newContext()
    switch (command, operands.count) {
    case ("add-student", 2):
        _ = Student(in: context, first_name: operands[0], id: UUID(), last_name: operands[1])
        try context.save()
        print("Added \(operands[1]), \(operands[0]).")
    case ("add-quiz", 1):
        _ = Quiz(in: context, id: UUID(), name: operands[0])
        try context.save()
        print("Added quiz \(operands[0]).")
    case ("grade", 3):
        let student = pick(try sortedStudents(context), operands[0], "student")
        let quiz = pick(try sortedQuizzes(context), operands[1], "quiz")
        guard let points = Int32(operands[2]) else { fail("points must be a whole number, not '\(operands[2])'") }
        // The model's fetch request template: student.id == $STUDENT_ID AND quiz.id == $QUIZ_ID.
        if let grade = try Grade.fetchGradeForStudentAndQuiz(STUDENT_ID: student.id, QUIZ_ID: quiz.id, in: context)
            .first
        {
            grade.points = points
            print("Updated \(student.first_name) \(student.last_name) on \(quiz.name): \(points).")
        } else {
            let grade = Grade(in: context, id: UUID())
            grade.points = points
            grade.student = student
            grade.quiz = quiz
            print("Recorded \(student.first_name) \(student.last_name) on \(quiz.name): \(points).")
        }
        try context.save()
    case ("delete-student", 1...):
        let students = try sortedStudents(context)
        // Positions refer to the list before any deletion.
        var chosen: [Student] = []
        for operand in operands {
            let student = pick(students, operand, "student")
            if !chosen.contains(where: { $0 === student }) { chosen.append(student) }
        }
        for student in chosen { context.delete(student) }
        try context.save()
        print("Deleted \(chosen.count) student(s).")
    case ("students", 0):
        try printStudents(context)
    case ("quizzes", 0):
        try printQuizzes(context)
    case ("list", 0):
        print("Students:")
        try printStudents(context)
        print("Quizzes:")
        try printQuizzes(context)
        print("Grades:")
        var any = false
        for student in try sortedStudents(context) {
            for grade in student.gradesArray {
                print("\(student.last_name), \(student.first_name) — \(grade.quiz?.name ?? "?"): \(grade.points)")
                any = true
            }
        }
        if !any { print("No grades.") }
    default:
        fail("unknown command or wrong number of operands: \(([command] + operands).joined(separator: " "))\n\(usage)")
    }
} catch {
    fail("\(error)")
}
