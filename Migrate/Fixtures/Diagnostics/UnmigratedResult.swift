// PromiseKit's Result spellings left as they were, compiled against Pledge with `-verify`:
// each error comment below is the message the migration guide's table quotes, for the line
// after it.
// `.ci/check-migrate` fails when the compiler's message changes, so that the table does too.
import Pledge

func report(_ results: [Result<Int, Error>]) {
    for result in results {
        switch result {
        // expected-error@+1 {{type 'Result<Int, any Error>' has no member 'fulfilled'}}
        case .fulfilled(let value):
            print(value)
        // expected-error@+1 {{type 'Result<Int, any Error>' has no member 'rejected'}}
        case .rejected:
            print("failed")
        }
    }
}

func first(of promises: [Promise<Int>]) -> Guarantee<Int> {
    when(resolved: promises).map { results in
        // expected-error@+1 {{type 'Result<Int, any Error>' has no member 'fulfilled'}}
        if case .fulfilled(let value) = results[0] { return value }
        return 0
    }
}

func wrap(_ value: Int) -> Result<Int, Error> {
    // expected-error@+1 {{type 'Result<Int, any Error>' has no member 'fulfilled'}}
    .fulfilled(value)
}

func settle(_ seal: Resolver<Int>, _ done: Resolver<Void>) {
    // expected-error@+1 {{type 'Result<Int, any Error>' has no member 'fulfilled'}}
    seal.resolve(.fulfilled(1))
    // expected-error@+1 {{reference to member 'fulfilled' cannot be resolved without a contextual type}}
    done.resolve(.fulfilled(()))
}

// expected-error@+1 {{generic type 'Result' specialized with too few type parameters (got 1, but expected 2)}}
func bridge(_ result: Result<Int>) {}
