// pledge-vs-nio: each of pledge-bench's W1–W6 with SwiftNIO's EventLoopFuture as its baseline,
// both sampled alternately in the same run (see NIOWorkloads.swift). It takes pledge-bench's
// options; the "Pledge/this" column is then Pledge's median over NIO's.
//
//     cd Benchmarks/NIOComparison && swift run -c release pledge-vs-nio [--filter W2] [--json FILE]

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

exit(PledgeBench.main(Array(CommandLine.arguments.dropFirst()), program: "pledge-vs-nio", suite: NIOComparison.suite))
