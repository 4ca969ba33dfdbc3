import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The error `validate()` rejects with when an HTTP response's status is not a success.
///
/// PromiseKit's type, with the same case. `Data` and `HTTPURLResponse` are `Sendable` in the
/// toolchain's Foundation, on Linux too, so the error is `Sendable` as it is.
///
/// ```swift
/// URLSession.shared.dataTask(.promise, with: url).validate().catch { error in
///     if case PMKHTTPError.badStatusCode(404, _, _) = error { showNotFound() }
/// }
/// ```
public enum PMKHTTPError: Error, Sendable {
    /// The response's status code was outside `200..<300`. Carries the status code, the
    /// response body and the response.
    case badStatusCode(Int, Data, HTTPURLResponse)

    /// The response body decoded as `type` from JSON, or `nil` when it does not decode.
    ///
    /// ```swift
    /// let problem = httpError.decodeResponse(Problem.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value, or `nil`.
    public func decodeResponse<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) -> T? {
        switch self {
        case .badStatusCode(_, let data, _):
            return try? decoder.decode(type, from: data)
        }
    }

    /// The response body parsed with `JSONSerialization`, or `nil` when it is not JSON.
    public var jsonDictionary: Any? {
        switch self {
        case .badStatusCode(_, let data, _):
            return try? JSONSerialization.jsonObject(with: data)
        }
    }

    /// The response body as UTF-8 text, or `nil` when it is not UTF-8.
    var responseBodyString: String? {
        switch self {
        case .badStatusCode(_, let data, _):
            return String(data: data, encoding: .utf8)
        }
    }
}

extension PMKHTTPError: LocalizedError {
    /// A sentence naming the status code and the URL.
    public var errorDescription: String? {
        switch self {
        case .badStatusCode(401, _, let response):
            return "Unauthorized (401) for \(response.url?.absoluteString ?? "an unknown URL")."
        case .badStatusCode(let code, _, let response):
            return "Invalid HTTP response (\(code)) for \(response.url?.absoluteString ?? "an unknown URL")."
        }
    }

    /// The response body as UTF-8 text, when it is.
    public var failureReason: String? {
        responseBodyString
    }
}

extension PMKHTTPError: CustomStringConvertible {
    /// The status code, the URL and the body (as text when it is UTF-8, as a byte count
    /// otherwise).
    public var description: String {
        switch self {
        case .badStatusCode(let code, let data, let response):
            let body = responseBodyString ?? "\(data.count) bytes"
            return "HTTP status \(code) for \(response.url?.absoluteString ?? "an unknown URL"); body: \(body)"
        }
    }
}

extension PMKHTTPError {
    /// How long the server asked the client to wait before trying again: the response's
    /// `Retry-After` header, in seconds or as an HTTP date (then the time from now until that
    /// date, zero once it has passed); `nil` without a header that reads as either.
    ///
    /// Servers send it with `429 Too Many Requests` and `503 Service Unavailable`. Hand it to
    /// `retry(attempts:backoff:clock:decide:_:)` to wait what the server said:
    ///
    /// ```swift
    /// retry(attempts: 4, backoff: .exponential(initial: .milliseconds(200)), decide: { error, _ in
    ///     if let wait = (error as? PMKHTTPError)?.retryAfter { return .retry(after: wait) }
    ///     return error.isCancelled ? .stop : .retry
    /// }) {
    ///     URLSession.shared.dataTask(.promise, with: url).validate()
    /// }
    /// ```
    public var retryAfter: Duration? {
        retryAfter(now: Date())
    }

    /// ``retryAfter`` as seen at `now`.
    func retryAfter(now: Date) -> Duration? {
        guard case .badStatusCode(_, _, let response) = self,
            let header = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces),
            !header.isEmpty
        else { return nil }
        if header.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Delay-seconds; a number too large for `Int64` waits as long as a `Duration` can.
            return .seconds(Int64(header) ?? .max)
        }
        guard let date = Self.httpDate(header) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }

    /// An HTTP date in any of the three forms RFC 9110 accepts: IMF-fixdate, RFC 850 and
    /// asctime.
    private static func httpDate(_ text: String) -> Date? {
        let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]
        for format in formats {
            // A formatter per call: the header is rare, and a shared one would need a lock.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
