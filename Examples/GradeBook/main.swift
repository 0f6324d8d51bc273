import Foundation
import ModelGenRuntime

// gradebook: SCENARIOS.md §1 on a store file. Students are listed (and addressed by position)
// sorted by last name, then first name; quizzes by name.

let usage = """
    usage: gradebook [--store PATH] COMMAND
      add-student FIRST LAST        add a student
      add-quiz NAME                 add a quiz
      grade STUDENT QUIZ POINTS     record a score (STUDENT and QUIZ: positions in the lists)
      delete-student POSITION...    delete students by position in the sorted list
      list                          students, quizzes and grades
      students | quizzes            one list
    The store defaults to gradebook.sqlite in the current directory.

    """

var arguments = Array(CommandLine.arguments.dropFirst())
var storePath = "gradebook.sqlite"
if let index = arguments.firstIndex(of: "--store") {
    guard index + 1 < arguments.count else { fail("--store needs a path") }
    storePath = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gradebook: \(message)\n".utf8))
    exit(1)
}

func sortedStudents(_ context: ObjectContext) throws -> [Student] {
    try Student.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Student.last_name), ObjectSortDescriptor(\Student.first_name)])
}

func sortedQuizzes(_ context: ObjectContext) throws -> [Quiz] {
    try Quiz.fetch(in: context, sortedBy: [ObjectSortDescriptor(\Quiz.name)])
}

/// The element at 1-based `text` of `list`, or a clear failure.
func pick<T>(_ list: [T], _ text: String, _ what: String) -> T {
    guard !list.isEmpty else { fail("there are no \(what)s yet") }
    guard let position = Int(text), (1...list.count).contains(position) else {
        fail("no \(what) at position '\(text)' (1 to \(list.count))")
    }
    return list[position - 1]
}

func printStudents(_ context: ObjectContext) throws {
    let students = try sortedStudents(context)
    if students.isEmpty { print("No students.") }
    for (index, student) in students.enumerated() {
        print("\(index + 1). \(student.last_name), \(student.first_name)")
    }
}

func printQuizzes(_ context: ObjectContext) throws {
    let quizzes = try sortedQuizzes(context)
    if quizzes.isEmpty { print("No quizzes.") }
    for (index, quiz) in quizzes.enumerated() { print("\(index + 1). \(quiz.name)") }
}

do {
    guard let command = arguments.first else {
        print(usage, terminator: "")
        exit(arguments.isEmpty ? 64 : 0)
    }
    let operands = Array(arguments.dropFirst())
    let store = try PersistentStore(path: storePath, model: GradeBookModel.model)
    let context = store.newContext()
    switch (command, operands.count) {
    case ("--help", _), ("-h", _), ("help", _):
        print(usage, terminator: "")
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
        if let grade = try Grade.fetchGradeForStudentAndQuiz(STUDENT_ID: student.id, QUIZ_ID: quiz.id, in: context).first {
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
        fail("unknown command or wrong number of operands: \(arguments.joined(separator: " "))\n\(usage)")
    }
} catch {
    fail("\(error)")
}
