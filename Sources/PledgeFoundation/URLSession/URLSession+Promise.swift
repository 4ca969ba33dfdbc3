import Foundation
import Pledge

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Starts a data task for `convertible` and returns a promise of the response body and the
    /// response.
    ///
    /// The task is resumed at once. The promise is fulfilled when the task completes with a
    /// response, whatever its HTTP status (call `validate()` to reject a status
    /// outside `200..<300`), and rejected with the task's error otherwise, typically a
    /// `URLError`. It settles on the session's delegate queue, where the task's completion
    /// handler runs. A response without a body gives empty `Data`.
    ///
    /// Cancelling the promise cancels the task: the promise is rejected with `PMKError.cancelled`
    /// at once. A task cancelled directly rejects it with `URLError.cancelled`, which
    /// `isCancelled` also recognises. The session must still be valid: on Linux, Foundation
    /// stops the process when a task is made on a session that was invalidated, and Pledge
    /// cannot tell beforehand.
    ///
    /// ```swift
    /// URLSession.shared.dataTask(.promise, with: url).validate().map { data, _ in
    ///     try JSONDecoder().decode(User.self, from: data)
    /// }.done { user in
    ///     show(user)
    /// }.catch { error in
    ///     report(error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - convertible: A `URL`, a `URLRequest` or another ``URLRequestConvertible``.
    /// - Returns: A promise of the body and the response.
    public func dataTask(
        _: PMKNamespacer, with convertible: URLRequestConvertible
    ) -> Promise<(data: Data, response: URLResponse)> {
        let request = convertible.pmkRequest
        return taskPromise { settle in
            dataTask(with: request) { data, response, error in settle(bodyResult(data, response, error)) }
        }
    }

    /// Starts an upload task that sends `data` as the body of `convertible`'s request, and
    /// returns a promise of the response body and the response.
    ///
    /// Settles, and is cancelled, as ``dataTask(_:with:)`` does: on the session's delegate queue;
    /// fulfilled with any response, rejected with the task's error.
    ///
    /// ```swift
    /// var request = URLRequest(url: url)
    /// request.httpMethod = "POST"
    /// URLSession.shared.uploadTask(.promise, with: request, from: payload).validate().done { _ in
    ///     markUploaded()
    /// }.catch { error in
    ///     report(error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - convertible: The request; set its `httpMethod` (`POST`, `PUT`, …).
    ///   - data: The body to send.
    /// - Returns: A promise of the response body and the response.
    public func uploadTask(
        _: PMKNamespacer, with convertible: URLRequestConvertible, from data: Data
    ) -> Promise<(data: Data, response: URLResponse)> {
        let request = convertible.pmkRequest
        return taskPromise { settle in
            uploadTask(with: request, from: data) { data, response, error in settle(bodyResult(data, response, error)) }
        }
    }

    /// Starts an upload task that sends the contents of `file` as the body of `convertible`'s
    /// request, and returns a promise of the response body and the response.
    ///
    /// Settles, and is cancelled, as ``dataTask(_:with:)`` does. A file that cannot be read
    /// rejects the promise with the task's error.
    ///
    /// ```swift
    /// URLSession.shared.uploadTask(.promise, with: request, fromFile: archive).validate().done { _ in
    ///     markUploaded()
    /// }.catch { error in
    ///     report(error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - convertible: The request; set its `httpMethod` (`POST`, `PUT`, …).
    ///   - file: A file URL whose contents are sent.
    /// - Returns: A promise of the response body and the response.
    public func uploadTask(
        _: PMKNamespacer, with convertible: URLRequestConvertible, fromFile file: URL
    ) -> Promise<(data: Data, response: URLResponse)> {
        let request = convertible.pmkRequest
        return taskPromise { settle in
            uploadTask(with: request, fromFile: file) { data, response, error in
                settle(bodyResult(data, response, error))
            }
        }
    }

    /// Starts a download task and returns a promise of where the downloaded file was saved and
    /// the response.
    ///
    /// When the download completes, the file is moved to `saveLocation` with
    /// `FileManager.moveItem(at:to:)`, from the task's completion handler, before the session
    /// deletes its temporary file. As in PromiseKit, the directory of `saveLocation` must exist,
    /// and a file already there makes the move fail. The promise settles on the session's
    /// delegate queue: fulfilled with `saveLocation` and the response, whatever its HTTP status,
    /// or rejected with the task's error or the move's. Cancelling the promise cancels the task.
    ///
    /// ```swift
    /// let destination = FileManager.default.temporaryDirectory.appendingPathComponent("report.pdf")
    /// URLSession.shared.downloadTask(.promise, with: url, to: destination).done { saved, _ in
    ///     open(saved)
    /// }.catch { error in
    ///     report(error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - convertible: A `URL`, a `URLRequest` or another ``URLRequestConvertible``.
    ///   - saveLocation: Where to move the downloaded file.
    /// - Returns: A promise of `saveLocation` and the response.
    public func downloadTask(
        _: PMKNamespacer, with convertible: URLRequestConvertible, to saveLocation: URL
    ) -> Promise<(saveLocation: URL, response: URLResponse)> {
        let request = convertible.pmkRequest
        return taskPromise { settle in
            downloadTask(with: request) { temporary, response, error in
                if let error {
                    settle(.failure(error))
                } else if let temporary, let response {
                    settle(
                        Result {
                            try FileManager.default.moveItem(at: temporary, to: saveLocation)
                            return (saveLocation, response)
                        })
                } else {
                    settle(.failure(PMKError.invalidCallingConvention))
                }
            }
        }
    }
}

/// A promise settled by the task `makeTask` returns, which it makes with the completion handler
/// it is given: the task is started at once, and cancelling the promise cancels it.
private func taskPromise<T: Sendable>(
    _ makeTask: (@escaping @Sendable (Result<T, Error>) -> Void) -> URLSessionTask
) -> Promise<T> {
    Promise { seal in
        let task = makeTask { seal.resolve($0) }
        seal.onCancel { task.cancel() }
        task.resume()
    }
}

/// A task's completion: the body and response when there is a response, its error otherwise.
private func bodyResult(
    _ data: Data?, _ response: URLResponse?, _ error: Error?
) -> Result<(data: Data, response: URLResponse), Error> {
    if let error { return .failure(error) }
    guard let response else { return .failure(PMKError.invalidCallingConvention) }
    return .success((data ?? Data(), response))
}
