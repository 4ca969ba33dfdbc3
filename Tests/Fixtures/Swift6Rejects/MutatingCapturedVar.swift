// expected-error: mutation of captured var 'count' in concurrently-executing code
import Pledge

func countValues() {
    var count = 0
    _ = Promise.value(1).done { count += $0 }
}
