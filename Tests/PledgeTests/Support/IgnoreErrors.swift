import Pledge

extension CatchMixin {
    /// Ends a chain whose error does not matter to the test, like `cauterize()` but without
    /// logging: tests capture log output instead of printing it.
    @discardableResult
    func ignoreErrors() -> PMKFinalizer {
        self.catch(on: nil) { _ in }
    }
}
