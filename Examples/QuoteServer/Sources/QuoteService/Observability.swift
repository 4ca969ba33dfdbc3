import Logging
import Pledge
import Tracing

/// The request a piece of code works for, as a task-local: bound by ``handlingRequest(id:name:_:)``
/// for the whole of one request, read by the logger's metadata provider.
public enum RequestLog {
    @TaskLocal public static var requestID: String?

    /// Adds `request.id` to every log line written while a request is handled, wherever the
    /// code that logs runs.
    public static let metadata = Logger.MetadataProvider {
        guard let id = RequestLog.requestID else { return [:] }
        return ["request.id": .string(id)]
    }

    /// Tells Pledge to carry the request's task-locals into the handlers of its chains: the
    /// request id and the trace context. Once, at start-up.
    public static func propagateThroughChains() {
        conf.propagate(RequestLog.$requestID)
        conf.propagate(ServiceContext.$current)
    }
}

/// Runs `operation` as the handling of one request: `id` bound for the logs, inside a server span
/// named `name`, whose trace every span started meanwhile joins.
public func handlingRequest<R: Sendable>(
    id: String, name: String, _ operation: @Sendable () async throws -> R
) async rethrows -> R {
    try await RequestLog.$requestID.withValue(id) {
        try await withSpan(name, ofKind: .server) { _ in try await operation() }
    }
}

/// `call`'s promise, traced as a client span in the current trace, ended when the promise settles.
///
/// The span's parent is the trace context where this is called, which Pledge carries into
/// handlers: a call made in a chain's handler, or in a retry's later attempt, joins the trace of
/// the request that built the chain.
public func traced<T: Sendable>(_ name: String, _ call: () -> Promise<T>) -> Promise<T> {
    let span = startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
    return call().tap(on: nil) { result in
        if case .failure(let error) = result { span.recordError(error) }
        span.end()
    }
}
