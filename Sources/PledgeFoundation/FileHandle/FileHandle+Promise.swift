import Foundation
import Pledge

extension FileHandle {
    /// Reads the file handle from its current offset to its end, on `queue`, and returns a
    /// promise of the bytes.
    ///
    /// The handle is read in chunks of 64 KiB on `queue` (a global queue by default), never on
    /// the calling thread; the promise is fulfilled there with everything read, empty `Data` for
    /// a handle already at its end, or rejected with the error a read throws. Do not read from
    /// the handle elsewhere until the promise has settled. The handle is left open.
    ///
    /// Cancelling the promise rejects it with `PMKError.cancelled` at once; the reading stops
    /// before the next chunk. A read that waits for data (on a pipe or a socket) is not
    /// interrupted: it stops after that read returns.
    ///
    /// ```swift
    /// FileHandle.standardInput.readToEnd(.promise).done { input in
    ///     process(input)
    /// }.catch { error in
    ///     print(error.localizedDescription)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - queue: The queue to read on.
    /// - Returns: A promise of the bytes read.
    public func readToEnd(_: PMKNamespacer, on queue: DispatchQueue = .global()) -> Promise<Data> {
        Promise { seal in
            queue.async {
                guard !seal.isCancelled else { return }
                seal.resolve(Result { try readChunks(of: self, until: { seal.isCancelled }) })
            }
        }
    }

    /// Opens the file at `url`, reads it to its end on `queue`, closes it, and returns a promise
    /// of its contents.
    ///
    /// The file is opened and read on `queue` (a global queue by default), never on the calling
    /// thread; the promise is fulfilled there with the contents, empty `Data` for an empty
    /// file, or rejected with the error opening or reading throws: a file that does not exist
    /// rejects with a `CocoaError` such as `.fileNoSuchFile` or `.fileReadNoSuchFile`.
    ///
    /// Cancelling the promise rejects it with `PMKError.cancelled` at once; the reading stops
    /// before the next 64 KiB chunk, and the file is closed.
    ///
    /// ```swift
    /// FileHandle.readToEnd(.promise, contentsOf: configurationURL).map { data in
    ///     try JSONDecoder().decode(Settings.self, from: data)
    /// }.done { settings in
    ///     apply(settings)
    /// }.catch { error in
    ///     print(error.localizedDescription)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - _: Always `.promise`.
    ///   - url: A file URL.
    ///   - queue: The queue to read on.
    /// - Returns: A promise of the file's contents.
    public static func readToEnd(
        _: PMKNamespacer, contentsOf url: URL, on queue: DispatchQueue = .global()
    ) -> Promise<Data> {
        Promise { seal in
            queue.async {
                guard !seal.isCancelled else { return }
                seal.resolve(
                    Result {
                        let handle = try FileHandle(forReadingFrom: url)
                        defer { try? handle.close() }
                        return try readChunks(of: handle, until: { seal.isCancelled })
                    })
            }
        }
    }
}

/// Reads `handle` to its end in 64 KiB chunks, stopping early (with what was read) when
/// `cancelled` says so between chunks.
private func readChunks(of handle: FileHandle, until cancelled: () -> Bool) throws -> Data {
    var contents = Data()
    while !cancelled() {
        guard let chunk = try handle.read(upToCount: 64 * 1024), !chunk.isEmpty else { break }
        contents.append(chunk)
    }
    return contents
}
