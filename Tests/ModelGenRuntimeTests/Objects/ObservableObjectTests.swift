import Foundation
import GeneratedModels
import Observation
import Testing

@_spi(Generated) @testable import ModelGenRuntime

/// Classes generated `observable` (the Tasks model) tell the Observation framework of every change
/// to a property that was read: their own setters, the other side of a relationship, a merge of
/// another context's save, a refresh, a rollback, a child context's save. Classes generated
/// without it are not `Observable`.
@Suite(.serialized) struct ObservableObjectTests {
    /// How many times `onChange` ran for the properties `read` reads.
    final class Changes: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func note() { lock.withLock { count += 1 } }

        /// Tracks what `read` reads; `onChange` counts (once: tracking ends at the first change).
        func track(_ read: () -> Void) {
            withObservationTracking(read) { [self] in note() }
        }
    }

    @Test func onlyClassesGeneratedObservableAreObservable() {
        func isObservable(_ type: Any.Type) -> Bool { type is any Observable.Type }
        #expect(isObservable(Task.self) && isObservable(Project.self))
        #expect(Task.entityDescription.isObserved && !Student.entityDescription.isObserved)
        #expect(!isObservable(Student.self) && !isObservable(Artwork.self))
        // A `category` entity's class is the program's.
        #expect(!isObservable(Label.self) && !Label.entityDescription.isObserved)
    }

    @Test func settersTellObserversOfTheValuesTheyRead() throws {
        TypedValueTests.registerColors()
        try TemporaryStore.with(TasksModel.model) { store, _ in
            let context = store.newContext()
            let task = Task(in: context, estimate: Points(rawValue: 1), title: "a")
            let changes = Changes()
            changes.track { _ = task.title }
            task.state = .open
            task.priority = .high
            #expect(changes.value == 0, "properties that were not read")
            task.title = "b"
            #expect(changes.value == 1)
            changes.track { _ = task.tags }
            task.tags = ["x"]
            #expect(changes.value == 2)
            changes.track { _ = task.priority }
            try task.setValue(Int16(3), forKey: "priority")
            #expect(changes.value == 3 && task.priority == .urgent, "dynamic access")
        }
    }

    @Test func relationshipsTellBothSides() throws {
        try TemporaryStore.with(TasksModel.model) { store, _ in
            let context = store.newContext()
            let house = Project(in: context, name: "house")
            let garden = Project(in: context, name: "garden")
            let task = Task(in: context, estimate: Points(rawValue: 1), title: "a")
            let changes = Changes()
            changes.track { _ = house.tasks }
            task.project = house
            #expect(changes.value == 1, "the inverse to-many changed")
            changes.track { _ = house.tasksArray }
            let other = Changes()
            other.track { _ = task.project }
            garden.addToTasks(task)
            #expect(changes.value == 2 && other.value == 1, "the old project lost it, the task's to-one changed")
            #expect(task.project === garden && house.tasks.isEmpty)
            try context.save()
        }
    }

    @Test func mergesRefreshesRollbacksAndChildSavesTellObservers() throws {
        try TemporaryStore.with(TasksModel.model) { store, _ in
            let main = store.newContext()
            let task = Task(in: main, estimate: Points(rawValue: 1), title: "a")
            let project = Project(in: main, name: "house")
            try main.save()

            // Another context's save, merged.
            let changes = Changes()
            changes.track { _ = task.title }
            let background = store.newContext()
            let copy = try background.existingObject(with: task.objectID, as: Task.self)
            copy.title = "from the background"
            copy.project = try background.existingObject(with: project.objectID, as: Project.self)
            try background.save()
            #expect(changes.value == 0, "nothing merged yet")
            let projectTasks = Changes()
            _ = project.tasks
            projectTasks.track { _ = project.tasks }
            main.mergeChangesFromStore()
            #expect(changes.value == 1 && task.title == "from the background")
            #expect(projectTasks.value == 1 && project.tasks == [task], "the relationship read again")

            // A rollback of an unsaved change.
            task.title = "unsaved"
            changes.track { _ = task.title }
            main.rollback()
            #expect(changes.value == 2 && task.title == "from the background")

            // A child context's save into its parent.
            changes.track { _ = task.priority }
            let form = main.newChildContext()
            try form.existingObject(with: task.objectID, as: Task.self).priority = .urgent
            try form.save()
            #expect(changes.value == 3 && task.priority == .urgent)
        }
    }
}
