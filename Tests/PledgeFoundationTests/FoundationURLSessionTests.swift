import Foundation
import Pledge
import PledgeFoundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSession`'s promise methods against a loopback server the suite starts itself.
@Suite struct FoundationURLSessionTests {
    /// Starts a server and a session for one test, runs `body`, then stops both.
    private func withServer(_ body: (LoopbackHTTPServer, URLSession) throws -> Void) throws {
        let server = try LoopbackHTTPServer()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        let session = URLSession(configuration: configuration)
        defer {
            session.invalidateAndCancel()
            server.stop()
        }
        try body(server, session)
    }

    @Test func dataTaskWithURLFulfilsWithTheBodyAndTheResponse() throws {
        try withServer { server, session in
            let result = session.dataTask(.promise, with: server.url("/hello")).settled()
            let value = try #require(result?.successValue)
            #expect(String(decoding: value.data, as: UTF8.self) == "Hello, Pledge")
            #expect((value.response as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test func dataTaskWithURLRequestFulfilsAndValidatePassesASuccess() throws {
        try withServer { server, session in
            let request = URLRequest(url: server.url("/hello"))
            let result = session.dataTask(.promise, with: request).validate().settled()
            let value = try #require(result?.successValue)
            #expect(value.data == Data("Hello, Pledge".utf8))
        }
    }

    @Test func validateRejectsA404WithItsStatusAndBody() throws {
        try withServer { server, session in
            let promise = session.dataTask(.promise, with: server.url("/missing"))
            let error = try #require(promise.validate().settled()?.failureError)
            guard case PMKHTTPError.badStatusCode(let code, let body, let response) = error else {
                Issue.record("expected PMKHTTPError.badStatusCode, got \(error)")
                return
            }
            #expect(code == 404)
            #expect(body == Data("no such thing".utf8))
            #expect(response.statusCode == 404)
            #expect(error.localizedDescription.contains("404"))
            #expect("\(error)".contains("no such thing"))
            // Without validate, a 404 is a response like any other.
            #expect(promise.settled()?.successValue != nil)
        }
    }

    @Test func dataTaskDeliversALargeBody() throws {
        try withServer { server, session in
            let result = session.dataTask(.promise, with: server.url("/large")).settled()
            let value = try #require(result?.successValue)
            #expect(value.data == LoopbackHTTPServer.largeBody)
        }
    }

    @Test func uploadTaskFromDataSendsTheBody() throws {
        try withServer { server, session in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            let result = session.uploadTask(.promise, with: request, from: payload).validate().settled()
            let value = try #require(result?.successValue)
            #expect(value.data == payload)
        }
    }

    @Test func uploadTaskFromFileSendsTheFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let payload = Data("uploaded from a file\n".utf8)
        try payload.write(to: file)
        try withServer { server, session in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            let result = session.uploadTask(.promise, with: request, fromFile: file).validate().settled()
            let value = try #require(result?.successValue)
            #expect(value.data == payload)
        }
    }

    @Test func downloadTaskMovesTheFileToTheSaveLocation() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("downloaded.txt")
        try withServer { server, session in
            let result = session.downloadTask(.promise, with: server.url("/download"), to: destination).settled()
            let value = try #require(result?.successValue)
            #expect(value.saveLocation == destination)
            #expect((value.response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try Data(contentsOf: destination) == LoopbackHTTPServer.downloadBody)
        }
    }

    @Test func aRequestThatIsNeverAnsweredTimesOut() throws {
        try withServer { server, session in
            let result = session.dataTask(.promise, with: server.url("/hang")).timeout(seconds: 1).settled()
            let error = try #require(result?.failureError)
            #expect(error as? PMKError == .timedOut)
            // The timeout cancelled the request: a server that received it sees the connection
            // close. (On a loaded machine the request may not have reached it within the second.)
            if server.hangArrived.wait(timeout: .now()) == .success {
                #expect(server.hangClosed.wait(timeout: .now() + testTimeout) == .success)
            }
        }
    }

    @Test func cancellingARequestInFlightCancelsItsTask() throws {
        try withServer { server, session in
            // Given a request the server has received and will never answer
            let promise = session.dataTask(.promise, with: server.url("/hang"))
            #expect(server.hangArrived.wait(timeout: .now() + testTimeout) == .success)
            // When the promise is cancelled
            promise.cancel()
            // Then it is rejected as cancelled at once, and the task's connection closes
            #expect(promise.isCancelled)
            #expect(promise.error as? PMKError == .cancelled)
            #expect(server.hangClosed.wait(timeout: .now() + testTimeout) == .success)
        }
    }

    @Test func aFailedConnectionRejectsWithTheURLError() throws {
        // A port that is bound but not listening: the connection is refused.
        let refusing = try RefusingLoopbackPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/hello"))
        let session = URLSession(configuration: .ephemeral)
        defer {
            session.invalidateAndCancel()
            refusing.release()
        }
        let error = try #require(session.dataTask(.promise, with: url).settled()?.failureError)
        #expect(error is URLError)
        #expect(!error.isCancelled)
    }
}
