import Testing
@testable import PledgeRandomTester

@Test func placeholder() {}
