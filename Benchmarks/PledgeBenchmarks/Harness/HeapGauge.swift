#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many bytes the process has in use on the heap, for the memory workloads.
///
/// Preferred source: glibc's `mallinfo2()` (glibc 2.33+), malloc's own count of the bytes in
/// allocated chunks (`uordblks`, chunk headers and rounding included, which is what an object
/// really costs) plus the bytes in chunks it got from `mmap` (`hblkhd`). It is exact and is not
/// disturbed by memory that earlier workloads freed. Swift's `Glibc` module does not import
/// `<malloc.h>`, so the function is looked up with `dlsym`.
///
/// Fallback: the resident set size from `/proc/self/statm`, after `malloc_trim(0)` has handed
/// freed memory back to the system. Page-granular and noisier, but fine for deltas of tens of
/// megabytes.
enum HeapGauge {
    /// Where the numbers come from: `mallinfo2`, `rss`, or `nil` when neither is available.
    static var source: String? {
        if mallinfo2InUse() != nil { return "mallinfo2" }
        if residentBytes() != nil { return "rss" }
        return nil
    }

    /// Prepares for a measurement: with the RSS fallback, returns freed memory to the system so
    /// that new allocations show up as growth.
    static func settle() {
        if mallinfo2InUse() == nil { trimHeap() }
    }

    /// The bytes in use now, or `nil` when there is no way to tell.
    static func bytesInUse() -> Int? {
        mallinfo2InUse() ?? residentBytes()
    }
}

// MARK: - mallinfo2

#if os(Linux) && arch(x86_64)
    /// `struct mallinfo2 mallinfo2(void)` as it is called on x86-64: a 10-word struct is returned
    /// in memory whose address the caller passes "as if it were the first argument" (System V
    /// x86-64 ABI, section 3.2.3), so the C signature is equivalent to `void *f(struct mallinfo2 *)`.
    /// Other architectures pass that address differently (arm64 uses x8) and use the fallback.
    private typealias Mallinfo2Function = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

    /// The ten `size_t` fields of `struct mallinfo2`, in declaration order.
    private enum Mallinfo2Field {
        static let count = 10
        static let hblkhd = 4  // bytes in chunks allocated with mmap
        static let uordblks = 7  // bytes in chunks allocated from the arenas
    }

    private func mallinfo2InUse() -> Int? {
        guard let handle = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(handle) }
        guard let symbol = dlsym(handle, "mallinfo2") else { return nil }
        // Safety: `mallinfo2` has the C type described at `Mallinfo2Function`; the buffer below has
        // room for the whole struct.
        let function = unsafeBitCast(symbol, to: Mallinfo2Function.self)
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: Mallinfo2Field.count) { fields in
            fields.initialize(repeating: 0)
            _ = function(UnsafeMutableRawPointer(fields.baseAddress!))
            return fields[Mallinfo2Field.uordblks] + fields[Mallinfo2Field.hblkhd]
        }
    }
#else
    private func mallinfo2InUse() -> Int? { nil }
#endif

// MARK: - RSS fallback

#if os(Linux)
    /// Resident pages times the page size, from `/proc/self/statm` (its second field).
    private func residentBytes() -> Int? {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Calls glibc's `int malloc_trim(size_t pad)` (not imported either; found with `dlsym`).
    private func trimHeap() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(handle) }
        guard let symbol = dlsym(handle, "malloc_trim") else { return }
        // Safety: `malloc_trim` has exactly the C type `MallocTrim`.
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
#else
    private func residentBytes() -> Int? { nil }
    private func trimHeap() {}
#endif
