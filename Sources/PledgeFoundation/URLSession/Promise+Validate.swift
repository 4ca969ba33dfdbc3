import Foundation
import Pledge

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Promise where T == (data: Data, response: URLResponse) {
    /// Passes an HTTP response on when its status code is in `200..<300`, and rejects with
    /// ``PMKHTTPError/badStatusCode(_:_:_:)`` otherwise.
    ///
    /// A response that is not an `HTTPURLResponse` (a `data:` URL, say) passes as it is. The
    /// check runs inline (`on: nil`): on the thread that settles this promise, for
    /// `dataTask(.promise, with:)` the session's delegate queue, or at once when it has settled.
    /// A rejection passes on unchanged, and cancelling the result cancels this promise as any
    /// operator does.
    ///
    /// ```swift
    /// URLSession.shared.dataTask(.promise, with: url).validate().done { data, _ in
    ///     show(data)
    /// }.catch { error in
    ///     if case PMKHTTPError.badStatusCode(let code, _, _) = error { showStatus(code) }
    /// }
    /// ```
    ///
    /// - Returns: A promise of the same body and response.
    public func validate() -> Promise<T> {
        map(on: nil) { body in
            guard let response = body.response as? HTTPURLResponse else { return body }
            guard (200..<300).contains(response.statusCode) else {
                throw PMKHTTPError.badStatusCode(response.statusCode, body.data, response)
            }
            return body
        }
    }
}
