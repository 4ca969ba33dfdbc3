// Not a build target: a fixture for measuring how long the type checker takes over a long chain
// of operators with multi-statement closures, before and after a change to the operators'
// overloads. Compile it against a built module:
//
//     swiftc -typecheck -I .build/debug/Modules -Xcc -I -Xcc Sources/CPledgeThreadLocal/include \
//         -Xfrontend -debug-time-function-bodies Tests/Fixtures/TypeCheck/LongChain.swift

import Dispatch
import Pledge

struct Account: Sendable {
    let id: Int
    let name: String
    let balance: Int
}

func longChain(_ queue: DispatchQueue) -> PMKFinalizer {
    Promise.value(7)
        .map(on: queue) { id in
            let doubled = id * 2
            return Account(id: doubled, name: "account \(doubled)", balance: 100)
        }
        .get { account in
            let label = account.name.uppercased()
            print(label)
        }
        .then(on: queue) { account in
            let bonus = account.balance / 10
            return Promise.value(Account(id: account.id, name: account.name, balance: account.balance + bonus))
        }
        .validate { account in
            let minimum = 50
            return account.balance > minimum
        }
        .compactMap(on: nil) { account in
            let parts = account.name.split(separator: " ")
            return parts.last.map { String($0) }
        }
        .map { suffix in
            let number = Int(suffix) ?? 0
            return [number, number + 1, number + 2]
        }
        .mapValues { element in
            let squared = element * element
            return squared + 1
        }
        .filterValues { element in
            let isEven = element % 2 == 0
            return isEven || element > 10
        }
        .tap { result in
            let described = "\(result)"
            print(described)
        }
        .recover { error -> Promise<[Int]> in
            let fallback = [0]
            print(error)
            return Promise.value(fallback)
        }
        .ensure(on: queue) {
            let finished = "finished"
            print(finished)
        }
        .done { values in
            let total = values.reduce(0, +)
            print(total)
        }
        .catch { error in
            let message = "failed: \(error)"
            print(message)
        }
}
