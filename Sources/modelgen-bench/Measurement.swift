import CAllocator
import Foundation

/// One row of a benchmark: a phase's time next to its baseline's, measured in the same process.
struct Phase {
    var name: String
    var milliseconds: Double
    var baselineMilliseconds: Double

    /// What the kernel did during the measured code and during its baseline, where the benchmark
    /// records it (the runtime benchmark does: its phases allocate megabytes the baseline does not).
    var kernel: KernelUsage? = nil
    var baselineKernel: KernelUsage? = nil
    /// The baseline's work timed a second time in the same run (`--noise`): next to
    /// `baselineMilliseconds` it shows how far apart two runs of identical work land here.
    var repeatedBaselineMilliseconds: Double? = nil

    var ratio: Double { milliseconds / baselineMilliseconds }

    /// One side's wall time and what the kernel did meanwhile (`Clock.timeWithKernel`).
    typealias Timing = (milliseconds: Double, kernel: KernelUsage)
}

/// The page faults the kernel served the process and the CPU time it spent on its behalf, over
/// some span (the difference of two readings).
///
/// A phase that creates 100,000 objects touches megabytes of memory the process never had; each
/// new page is a fault, and on a virtual machine a fault can cost microseconds (the host backs the
/// page too). Shown next to the wall times so a ratio's cause can be read off the table.
struct KernelUsage {
    var pageFaults: Int
    var milliseconds: Double

    /// The process's totals so far.
    static func now() -> KernelUsage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        let system = Double(usage.ru_stime.tv_sec) * 1_000 + Double(usage.ru_stime.tv_usec) / 1_000
        return KernelUsage(pageFaults: Int(usage.ru_minflt + usage.ru_majflt), milliseconds: system)
    }

    static func - (end: KernelUsage, start: KernelUsage) -> KernelUsage {
        KernelUsage(pageFaults: end.pageFaults - start.pageFaults, milliseconds: end.milliseconds - start.milliseconds)
    }

    static func + (lhs: KernelUsage, rhs: KernelUsage) -> KernelUsage {
        KernelUsage(pageFaults: lhs.pageFaults + rhs.pageFaults, milliseconds: lhs.milliseconds + rhs.milliseconds)
    }
}

enum Clock {
    /// The best (lowest) wall time of `runs` calls of `body`, in milliseconds, after `warmups`
    /// unmeasured calls. On a shared virtual machine noise only ever adds time, so the minimum is
    /// the most repeatable estimate of the work itself; baseline and measured code get the same
    /// treatment.
    static func best(runs: Int, warmups: Int = 2, _ body: () -> Void) -> Double {
        for _ in 0..<warmups { body() }
        var best = Double.infinity
        for _ in 0..<runs { best = min(best, time(body)) }
        return runs > 0 ? best : 0
    }
}

extension Clock {
    /// The best wall times of `baseline` and `body`, measured in alternation (`runs` of each
    /// after `warmups` of each), so a slow period of the machine falls on both alike instead of
    /// on whichever happened to run then.
    static func bestInterleaved(runs: Int, warmups: Int = 2, baseline: () -> Void, _ body: () -> Void) -> (
        baseline: Double, measured: Double
    ) {
        for _ in 0..<warmups {
            baseline()
            body()
        }
        var baselineBest = Double.infinity
        var measuredBest = Double.infinity
        for _ in 0..<runs {
            baselineBest = min(baselineBest, time(baseline))
            measuredBest = min(measuredBest, time(body))
        }
        return (baselineBest, measuredBest)
    }

    /// The wall time of `body`, in milliseconds, including the allocator's work for what it freed.
    ///
    /// glibc defers part of freeing small blocks: they wait in its fast bins until the next
    /// large request on that heap merges them all. After libxml2 frees the 2,000-entity document
    /// that merge takes 40–90 ms here, and after a `generate` well under a millisecond; measured
    /// without this, alternating runs charged the parse's merge to the `generate` that followed
    /// it (its first large allocation). Every timed body (baseline or measured) ends with that
    /// deferred work done, on its own clock (unless `settlesFreedMemory` is off: `--unsettled`).
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        if settlesFreedMemory { _ = modelgen_settle_freed_memory() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }

    /// `time(body)` together with what the kernel did meanwhile.
    static func timeWithKernel(_ body: () throws -> Void) rethrows -> Phase.Timing {
        let start = KernelUsage.now()
        let milliseconds = try time(body)
        return (milliseconds, KernelUsage.now() - start)
    }

    /// Whether `time` ends each run with the allocator's deferred work done (set once, before
    /// any benchmark runs).
    nonisolated(unsafe) static var settlesFreedMemory = true
}

enum Report {
    static func print(_ phases: [Phase], json: Bool, title: String) {
        if json {
            let rows = phases.map { phase in
                "{\"name\":\"\(phase.name)\",\"ms\":\(format(phase.milliseconds)),\"baselineMs\":\(format(phase.baselineMilliseconds)),\"ratio\":\(format(phase.ratio))}"
            }
            Swift.print("{\"phases\":[" + rows.joined(separator: ",") + "]}")
            return
        }
        Swift.print(title)
        let showsKernel = phases.contains { $0.kernel != nil }
        let showsNoise = phases.contains { $0.repeatedBaselineMilliseconds != nil }
        Swift.print(
            "phase".padding(toLength: 22, withPad: " ", startingAt: 0) + "      ms   baseline ms   ratio"
                + (showsKernel ? "   page faults (baseline)   kernel ms (baseline)" : "")
                + (showsNoise ? "   baseline again ÷ baseline" : ""))
        for phase in phases {
            var line =
                phase.name.padding(toLength: 22, withPad: " ", startingAt: 0)
                + pad(format(phase.milliseconds), 8) + pad(format(phase.baselineMilliseconds), 14)
                + pad(format(phase.ratio), 8)
            if showsKernel, let kernel = phase.kernel, let baseline = phase.baselineKernel {
                line += pad("\(kernel.pageFaults) (\(baseline.pageFaults))", 25)
                line += pad(
                    "\(String(format: "%.1f", kernel.milliseconds)) (\(String(format: "%.1f", baseline.milliseconds)))",
                    23)
            }
            if showsNoise, let again = phase.repeatedBaselineMilliseconds {
                line += pad(format(again / phase.baselineMilliseconds), 28)
            }
            Swift.print(line)
        }
    }

    static func format(_ value: Double) -> String { String(format: "%.3f", value) }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
