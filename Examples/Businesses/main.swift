import ExampleSupport
import Foundation
import ModelGenRuntime

// businesses: SCENARIOS.md §4. Businesses, departments (many-to-many with businesses) and
// employees, addressed by name.

let usage = """
    usage: businesses [--store PATH | --postgres URL] COMMAND
      add-business NAME                      add a business
      add-department NAME                    add a department
      add-employee NAME AGE [YYYY-MM-DD]     add an employee (joined today unless a date is given)
      link BUSINESS DEPARTMENT               add a department to a business (addToDepartments)
      unlink BUSINESS DEPARTMENT             remove it again (removeFromDepartments)
      assign EMPLOYEE BUSINESS DEPARTMENT    assign an employee to a business and a department
      delete-department NAME                 delete a department (Nullify)
      businesses                             businesses sorted by name, with their departments
      departments                            departments sorted by name, with businesses and employees
      employees BUSINESS                     the employees of one business (business == %@)
    The store defaults to businesses.sqlite in the current directory; --postgres (or MODELGEN_POSTGRES_URL)
    names a PostgreSQL database instead.

    """

let commandLine = ExampleCommandLine(program: "businesses", defaultStore: "businesses.sqlite", usage: usage)

@MainActor func business(_ name: String, _ context: ObjectContext) throws -> BusinessEntity {
    guard let found = try BusinessEntity.first(in: context, where: \BusinessEntity.name == name) else {
        commandLine.fail("no business named '\(name)'")
    }
    return found
}

@MainActor func department(_ name: String, _ context: ObjectContext) throws -> DepartmentEntity {
    guard let found = try DepartmentEntity.first(in: context, where: \DepartmentEntity.name == name) else {
        commandLine.fail("no department named '\(name)'")
    }
    return found
}

@MainActor func names<T>(_ objects: some Sequence<T>, _ name: (T) -> String?) -> String {
    let list = objects.map { name($0) ?? "?" }.sorted()
    return list.isEmpty ? "none" : list.joined(separator: ", ")
}

do {
    let store = try commandLine.openStore(BusinessesModel.model)
    let context = store.newContext()
    let operands = commandLine.operands
    switch (commandLine.command ?? "", operands.count) {
    case ("add-business", 1):
        BusinessEntity(in: context).name = operands[0]
        try context.save()
        print("Added business \(operands[0]).")
    case ("add-department", 1):
        DepartmentEntity(in: context).name = operands[0]
        try context.save()
        print("Added department \(operands[0]).")
    case ("add-employee", 2...3):
        guard let age = Int16(operands[1]), age >= 0 else {
            commandLine.fail("age must be a whole number, not '\(operands[1])'")
        }
        let employee = EmployeeEntity(in: context)
        employee.name = operands[0]
        employee.age = age
        if operands.count == 3 {
            let format = Date.ISO8601FormatStyle().year().month().day()
            guard let date = try? format.parse(operands[2]) else {
                commandLine.fail("'\(operands[2])' is not a YYYY-MM-DD date")
            }
            employee.dateJoined = date
        } else {
            employee.dateJoined = Date()
        }
        try context.save()
        print("Added employee \(operands[0]).")
    case ("link", 2):
        try business(operands[0], context).addToDepartments(try department(operands[1], context))
        try context.save()
        print("\(operands[0]) now has department \(operands[1]).")
    case ("unlink", 2):
        try business(operands[0], context).removeFromDepartments(try department(operands[1], context))
        try context.save()
        print("\(operands[0]) no longer has department \(operands[1]).")
    case ("assign", 3):
        guard let employee = try EmployeeEntity.first(in: context, where: \EmployeeEntity.name == operands[0]) else {
            commandLine.fail("no employee named '\(operands[0])'")
        }
        employee.business = try business(operands[1], context)
        employee.department = try department(operands[2], context)
        try context.save()
        print("\(operands[0]) works for \(operands[1]) in \(operands[2]).")
    case ("delete-department", 1):
        context.delete(try department(operands[0], context))
        try context.save()
        print("Deleted department \(operands[0]).")
    case ("businesses", 0):
        let all = try BusinessEntity.fetch(in: context, sortedBy: [ObjectSortDescriptor(\BusinessEntity.name)])
        if all.isEmpty { print("No businesses.") }
        for item in all {
            print(
                "\(item.name ?? "?"): departments \(names(item.departments, \.name)); employees \(names(item.employees, \.name))"
            )
        }
    case ("departments", 0):
        let all = try DepartmentEntity.fetch(in: context, sortedBy: [ObjectSortDescriptor(\DepartmentEntity.name)])
        if all.isEmpty { print("No departments.") }
        for item in all {
            print(
                "\(item.name ?? "?"): businesses \(names(item.businesses, \.name)); employees \(names(item.employees, \.name))"
            )
        }
    case ("employees", 1):
        let owner = try business(operands[0], context)
        // The object itself in the predicate, compared by identity.
        let employees = try EmployeeEntity.fetch(
            in: context, where: try ObjectPredicate(format: "business == %@", owner),
            sortedBy: [ObjectSortDescriptor(\EmployeeEntity.name)])
        if employees.isEmpty { print("No employees.") }
        for employee in employees {
            print(
                "\(employee.name ?? "?"), \(employee.age.map(String.init) ?? "?"), department \(employee.department?.name ?? "none")"
            )
        }
    default:
        commandLine.fail("unknown command or wrong number of operands\n\(usage)")
    }
} catch {
    commandLine.fail("\(error)")
}
