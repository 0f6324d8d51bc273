/// What planning one table that exists in both versions collects: its steps, where each new
/// column takes its values from, and whether SQLite must rebuild it.
struct TableChanges {
    var steps: [MigrationPlan.Step] = []
    var sources: [String: MigrationPlan.ColumnSource] = [:]
    var rebuild = false
    /// Old columns accounted for: kept, or reported as something other than a drop.
    var kept: Set<String> = []
    /// New columns converted exactly from another type (their values already fit its checks).
    var convertedExactly: Set<String> = []
    /// Old entity number → new, for the table's entities that stay.
    var numbers: [Int64: Int64] = [:]
    /// The entity numbers whose rows are copied, when rows of other entities are dropped.
    var keptEntities: [Int64]?
}

extension MigrationPlanner {
    /// The steps that turn `old` into `new` (the same table, matched by identity), by concern:
    /// columns added and kept, columns dropped, entity numbers, constraints.
    func planTable(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities,
        _ newNames: [String: String],
        _ plan: inout MigrationPlan
    ) {
        var changes = TableChanges()
        if old.name != new.name {
            changes.steps.append(
                .init(
                    code: .renameTable, safety: .safe, subject: new.name,
                    message: "table \(old.name) is renamed \(new.name)"))
        }
        planColumns(old, new, oldIDs, newIDs, newNames, &changes)
        let leaving = Self.planDroppedColumns(old, new, oldIDs, plan, &changes)
        Self.planEntityNumbers(old, new, oldIDs, newIDs, leaving: leaving, plan, &changes)
        Self.planConstraints(old, new, oldIDs, newIDs, &changes)
        guard !changes.steps.isEmpty else { return }
        plan.steps += changes.steps
        plan.tables.append(
            .alter(
                old: old, new: new, sources: changes.sources, rebuild: changes.rebuild,
                keptEntityIDs: changes.keptEntities))
    }

    // MARK: - Columns added and kept

    private func planColumns(
        _ old: Table, _ new: Table, _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities,
        _ newNames: [String: String],
        _ changes: inout TableChanges
    ) {
        var oldColumns: [String: Column] = [:]
        for (column, identity) in zip(old.columns, oldIDs.columns(old)) { oldColumns[identity] = column }
        // A property that gained or lost a same-named sibling has its identity with its entity on
        // one side only: found by that.
        let oldDeclared = oldIDs.columnsByDeclaration(old)
        for (column, identity) in zip(new.columns, newIDs.columns(new)) {
            let subject = "\(new.name).\(column.name)"
            guard let previous = oldColumns[identity] ?? oldDeclared[newIDs.declaredColumn(column)] else {
                planAddedColumn(column, subject, new, &changes)
                continue
            }
            let oldKey = old.foreignKeys.first { $0.columns == [previous.name] }
            let newKey = new.foreignKeys.first { $0.columns == [column.name] }
            if let oldKey, let newKey,
                Self.planChangedDestination(column, previous, subject, oldKey, newKey, oldIDs, newIDs, &changes)
            {
                continue
            }
            changes.kept.insert(previous.name)
            changes.sources[column.name] = .column(previous.name)
            // Keys to rows that moved to another table now name that table.
            if let oldKey, let newKey,
                newKey.referencedTable != newNames[oldKey.referencedTable, default: oldKey.referencedTable]
            {
                changes.rebuild = true
                changes.steps.append(
                    .init(
                        code: .retargetKey, safety: .rewrite, subject: subject,
                        message: "\(subject) now points at \(newKey.referencedTable), where its rows moved"))
            }
            if previous.name != column.name {
                changes.steps.append(
                    .init(
                        code: .renameColumn, safety: .safe, subject: subject,
                        message: "column \(old.name).\(previous.name) is renamed \(column.name)"))
            }
            Self.planValueChanges(column, previous, subject, old, &changes)
        }
    }

    /// A column only the new table has: in place when it takes NULL or a default, else filled
    /// with the `--default` value or waiting for one.
    private func planAddedColumn(_ column: Column, _ subject: String, _ new: Table, _ changes: inout TableChanges) {
        // SQLite adds a column with nothing but its own checks and key in place.
        if !Self.addableInPlace(column, new) { changes.rebuild = true }
        changes.sources[column.name] = .nothing
        // Nullable in the table but required for some entities' rows counts as required.
        let requiredForSome = new.checks.contains {
            if case .requiredFor(column.name, let ids) = $0.condition { return !ids.isEmpty }
            return false
        }
        if (column.isNullable && !requiredForSome) || column.defaultValue != nil {
            changes.steps.append(
                .init(code: .addColumn, safety: .safe, subject: subject, message: "new column \(subject)"))
        } else if let text = column.source.flatMap({ defaults[$0] }) {
            if let fill = Self.fill(text, for: column.type) {
                changes.rebuild = true
                changes.sources[column.name] = fill
                changes.steps.append(
                    .init(
                        code: .addRequiredColumn, safety: .safe, subject: subject,
                        message: "new required column \(subject), filled with \(text)"))
            } else {
                changes.steps.append(
                    .init(
                        code: .invalidDefault, safety: .needsInput, subject: subject,
                        message: "'\(text)' is not a \(column.type.rawValue) value for \(subject)"))
            }
        } else {
            changes.steps.append(
                .init(
                    code: .addRequiredColumn, safety: .needsInput, subject: subject,
                    message:
                        "new required column \(subject) has no default: give one with --default \(column.source ?? subject)=VALUE"
                ))
        }
    }

    /// A relationship whose destination is another entity now: its keys would point at unrelated
    /// rows, so they are not kept. Whether it was one.
    private static func planChangedDestination(
        _ column: Column, _ previous: Column, _ subject: String, _ oldKey: ForeignKey, _ newKey: ForeignKey,
        _ oldIDs: SchemaIdentities, _ newIDs: SchemaIdentities, _ changes: inout TableChanges
    ) -> Bool {
        guard oldIDs.tables[oldKey.referencedTable] != newIDs.referenceIdentity(newKey.referencedTable) else {
            return false
        }
        changes.rebuild = true
        changes.kept.insert(previous.name)  // reported here, not again as dropped
        changes.sources[column.name] = .nothing
        if column.isNullable {
            changes.steps.append(
                .init(
                    code: .changeDestination, safety: .lossy, subject: subject,
                    message: "\(subject) now points at \(newKey.referencedTable); its values are dropped"))
        } else {
            changes.steps.append(
                .init(
                    code: .changeDestination, safety: .refused, subject: subject,
                    message:
                        "\(subject) is required and now points at \(newKey.referencedTable): its values cannot be kept")
            )
        }
        return true
    }

    /// A kept column's type, optionality and default.
    private static func planValueChanges(
        _ column: Column, _ previous: Column, _ subject: String, _ old: Table, _ changes: inout TableChanges
    ) {
        if previous.type != column.type {
            changes.rebuild = true
            if let conversion = TypeConversion.make(previous.type, column.type) {
                changes.steps.append(
                    .init(
                        code: conversion.code, safety: conversion.safety, subject: subject,
                        message: "\(subject): \(previous.type.rawValue) → \(column.type.rawValue)"
                            + (conversion.checksValues
                                ? "; a value that does not convert exactly stops the migration" : ""),
                        preflight: conversion.checksValues
                            ? .inexactValues(
                                table: old.name, column: previous.name, from: previous.type, to: column.type) : nil))
                changes.sources[column.name] = .converted(previous.name)
                // Values converted exactly already fit the new column's width check.
                if conversion.safety == .rewrite && [.widenType, .convertType].contains(conversion.code) {
                    changes.convertedExactly.insert(column.name)
                }
            } else {
                changes.steps.append(
                    .init(
                        code: .unsupportedTypeChange, safety: .refused, subject: subject,
                        message:
                            "\(subject): \(previous.type.rawValue) → \(column.type.rawValue) is not migrated automatically yet"
                    ))
            }
        }
        if previous.isNullable && !column.isNullable {
            changes.rebuild = true
            if let value = column.defaultValue {
                changes.sources[column.name] = .coalesced(previous.name, value)
                changes.steps.append(
                    .init(
                        code: .makeRequired, safety: .rewrite, subject: subject,
                        message: "\(subject) becomes required; NULLs take its default"))
            } else {
                changes.steps.append(
                    .init(
                        code: .makeRequired, safety: .dataDependent, subject: subject,
                        message: "\(subject) becomes required; a row where it is NULL stops the migration",
                        preflight: .nulls(table: old.name, column: previous.name)))
            }
        } else if !previous.isNullable && column.isNullable {
            changes.rebuild = true
            changes.steps.append(
                .init(code: .makeOptional, safety: .rewrite, subject: subject, message: "\(subject) becomes optional"))
        }
        if previous.defaultValue != column.defaultValue {
            changes.rebuild = true
            changes.steps.append(
                .init(
                    code: .changeDefault, safety: .rewrite, subject: subject, message: "\(subject) gets a new default"))
        }
    }
}

/// The step codes this file emits (stable: `modelgen diff` prints them and scripts match them).
extension MigrationPlan.Step.Code {
    static let addColumn: Self = "add-column"
    static let addRequiredColumn: Self = "add-required-column"
    static let changeDefault: Self = "change-default"
    static let changeDestination: Self = "change-destination"
    static let invalidDefault: Self = "invalid-default"
    static let makeOptional: Self = "make-optional"
    static let makeRequired: Self = "make-required"
    static let renameColumn: Self = "rename-column"
    static let renameTable: Self = "rename-table"
    static let retargetKey: Self = "retarget-key"
    static let unsupportedTypeChange: Self = "unsupported-type-change"
}
