import Dispatch
import Pledge

// Handlers written in an actor's methods touch its state with no annotation: they run isolated to
// the actor. Compiled in Swift 6 mode by every build, and in Swift 5 mode by .ci/check-clients.

private struct Reading: Sendable {
    let sensor: Int
    let value: Double
}

private func fetchReading(_ sensor: Int) -> Promise<Reading> { .value(Reading(sensor: sensor, value: 1.5)) }
private func cachedReading() -> Guarantee<Reading> { .value(Reading(sensor: 0, value: 0)) }

private actor ReadingStore {
    var total = 0.0
    var failures = 0
    var seen: [Int] = []

    func refresh(_ sensors: [Int]) {
        fetchReading(sensors.first ?? 0)
            .map { reading -> Double in
                self.seen.append(reading.sensor)
                return reading.value
            }
            .then { value -> Promise<Reading> in
                self.total += value
                return fetchReading(self.seen.count)
            }
            .get { self.seen.append($0.sensor) }
            .tap { _ in self.total += 0 }
            .compactMap { self.seen.isEmpty ? nil : $0 }
            .recover { _ in
                self.failures += 1
                return Promise.value(Reading(sensor: -1, value: 0))
            }
            .ensure { self.total += 0 }
            .done { self.total += $0.value }
            .catch { _ in self.failures += 1 }
            .finally { self.seen.append(0) }
        Promise.value(sensors)
            .mapValues { fetchReading($0) }
            .thenMap { $0 }
            .filterValues { $0.value > 0 || self.failures > 0 }
            .done { self.seen += $0.map(\.sensor) }
            .cauterize()
        cachedReading().map { $0.value }.done { self.total += $0 }
        Promise<Void>.value(()).recover { _ in self.failures += 1 }
    }
}
