import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value that `URLSession`'s promise methods can turn into a request: a `URL` or a
/// `URLRequest`, or a type of your own.
///
/// As in PromiseKit, so that `dataTask(.promise, with:)` takes either.
///
/// ```swift
/// struct Endpoint: URLRequestConvertible {
///     let path: String
///     var pmkRequest: URLRequest {
///         URLRequest(url: URL(string: "https://api.example.com")!.appendingPathComponent(path))
///     }
/// }
/// ```
public protocol URLRequestConvertible {
    /// The request to send.
    var pmkRequest: URLRequest { get }
}

extension URLRequest: URLRequestConvertible {
    /// The request itself.
    public var pmkRequest: URLRequest { self }
}

extension URL: URLRequestConvertible {
    /// A `GET` request for the URL, with the default cache policy and timeout.
    public var pmkRequest: URLRequest { URLRequest(url: self) }
}
