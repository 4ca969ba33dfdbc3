import Foundation
import SwiftSyntax

/// Reads a file before it is rewritten: what it declares itself (which the rewrites leave
/// alone), and what no rewrite can fix, each reported with its one-line fix.
final class Reporter: SyntaxAnyVisitor {
    /// The names a file declares: types and enum cases.
    struct Declarations {
        var types: Set<String> = []
        var cases: Set<String> = []
        var functions: Set<String> = []
    }

    /// Pledge's operators that take a closure: an extension declaring one of these with a
    /// closure that is not `@Sendable` shadows Pledge's.
    static let operators: Set<String> = [
        "pipe", "then", "map", "compactMap", "done", "get", "tap", "catch", "recover", "ensure", "ensureThen",
        "finally", "validate", "thenMap", "thenFlatMap", "mapValues", "flatMapValues", "compactMapValues",
        "filterValues",
    ]

    /// The types whose members Pledge declares under PromiseKit's names.
    static let pledgeTypes: Set<String> = [
        "Promise", "Guarantee", "Thenable", "CatchMixin", "PMKFinalizer", "Resolver",
    ]

    let file: SourceFile
    private(set) var declared = Declarations()
    private(set) var reports: [Finding] = []

    init(_ file: SourceFile) {
        self.file = file
        super.init(viewMode: .sourceAccurate)
    }

    private func report(_ node: some SyntaxProtocol, _ message: String) {
        reports.append(file.finding(message, at: node))
    }

    /// Collects the types the file declares: structs, classes, enums, actors, protocols, aliases.
    override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
        if node.asProtocol((any DeclGroupSyntax).self) != nil, let named = node.asProtocol((any NamedDeclSyntax).self) {
            declared.types.insert(named.name.text)
        } else if let alias = node.as(TypeAliasDeclSyntax.self) {
            declared.types.insert(alias.name.text)
        }
        return .visitChildren
    }

    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        declared.cases.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        // The Rewriter renames its `T` to `Success`, unless a member declares a `T` of its own.
        if Self.extendsPromiseKitResult(node), Self.declaresGenericT(node) {
            report(
                node,
                "an extension of PromiseKit's Result<T>, whose T is Success in Swift's Result, and a member "
                    + "declares a T of its own: rename PromiseKit's T to Success by hand")
        }
        return .visitChildren
    }

    /// Whether `node` extends PromiseKit's `Result` (`Result` or `PromiseKit.Result`).
    static func extendsPromiseKitResult(_ node: ExtensionDeclSyntax) -> Bool {
        if let identifier = node.extendedType.as(IdentifierTypeSyntax.self) { return identifier.name.text == "Result" }
        if let member = node.extendedType.as(MemberTypeSyntax.self) {
            return member.name.text == "Result" && member.baseType.trimmedDescription == "PromiseKit"
        }
        return false
    }

    static func declaresGenericT(_ node: some SyntaxProtocol) -> Bool {
        node.tokens(viewMode: .sourceAccurate).contains { token in
            token.text == "T" && token.parent?.is(GenericParameterSyntax.self) == true
        }
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        declared.functions.insert(node.name.text)
        // The Rewriter marks the plain closures `@Sendable`; one inside an optional it cannot.
        for parameter in Self.shadowingParameters(of: node) where Rewriter.sendable(parameter.type) == nil {
            report(
                parameter,
                "\(Self.signature(of: node)) here shadows Pledge's, whose closure is @Sendable: a call with a "
                    + "plain closure resolves to this one (inside it, to itself, for ever); make the closure "
                    + "type @Sendable")
        }
        return .visitChildren
    }

    /// The parameters of `function` that make it shadow a Pledge operator: `function` is declared
    /// in an extension of a Pledge type, is named as an operator, and these closure parameters
    /// are not `@Sendable`, so that a plain closure matches it better than Pledge's.
    static func shadowingParameters(of function: FunctionDeclSyntax) -> [FunctionParameterSyntax] {
        guard operators.contains(function.name.text), let extended = enclosingExtension(of: function),
            pledgeTypes.contains(typeName(extended.extendedType))
        else { return [] }
        return function.signature.parameterClause.parameters.filter { isPlainClosure($0.type) }
    }

    /// Whether `function` declares, in an extension of a Pledge type, what Pledge declares there
    /// itself: the bridges clients wrote around PromiseKit (`Promise.async()`, PromiseKit 6's;
    /// `Resolver.resolve(_: Swift.Result<T, Error>)`). Once migrated, they shadow Pledge's own, and
    /// one that forwards to it calls itself.
    static func duplicatesPledge(_ function: FunctionDeclSyntax) -> Bool {
        guard let extended = enclosingExtension(of: function).map({ typeName($0.extendedType) }) else { return false }
        let parameters = function.signature.parameterClause.parameters
        switch function.name.text {
        case "async":
            return ["Promise", "Guarantee", "Thenable", "CatchMixin"].contains(extended) && parameters.isEmpty
                && function.signature.effectSpecifiers?.asyncSpecifier != nil
        case "resolve":
            guard extended == "Resolver", parameters.count == 1, let only = parameters.first,
                only.firstName.tokenKind == .wildcard
            else { return false }
            let type = only.type.trimmedDescription.replacingOccurrences(of: "any Error", with: "Error")
            return ["Swift.Result<T, Error>", "Result<T, Error>"].contains(type)
        default:
            return false
        }
    }

    /// `pipe(to:)`, as people name a function.
    static func signature(of function: FunctionDeclSyntax) -> String {
        let labels = function.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
        return "\(function.name.text)(\(labels))"
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "wrap",
            node.trailingClosure != nil || node.arguments.count == 1
        {
            report(
                node,
                "PromiseKit 6's wrap { } is gone: write Promise { seal in f(completion: seal.resolve) } "
                    + "(or the callback's own form)")
        }
        if let access = node.calledExpression.as(MemberAccessExprSyntax.self),
            access.declName.baseName.text == "future",
            node.arguments.isEmpty, node.trailingClosure == nil
        {
            report(node, "future() (PromiseKit's Combine bridge) is not in Pledge: await the promise's async()")
        }
        return .visitChildren
    }

    override func visitPost(_ node: SourceFileSyntax) {
        let tokens = node.tokens(viewMode: .sourceAccurate)
        // PromiseKit ran handlers on the main queue by default; Pledge runs them on its own.
        let setsQueues = node.description.contains("conf.Q =")
        if !setsQueues, let check = tokens.first(where: { $0.text == "isMainThread" }) {
            report(
                check,
                "this code checks for the main thread: PromiseKit ran handlers there by default, Pledge runs "
                    + "those written outside any actor on a queue of its own; if they must run on the main "
                    + "queue, set conf.Q = (map: .main, return: .main) at start-up")
        }
        if (file.path as NSString).lastPathComponent == "Package.swift",
            let literal = tokens.first(where: {
                guard case .stringSegment(let text) = $0.tokenKind else { return false }
                return text.contains("PromiseKit") || text.contains("PMKFoundation")
            })
        {
            report(
                literal,
                "the manifest depends on PromiseKit: depend on Pledge instead, with its products Pledge "
                    + "(for PromiseKit) and PledgeFoundation (for PMKFoundation)")
        }
    }

    override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
        // A log handler that traps on events it does not know: Pledge logs more of them. (The
        // parser leaves `a = b` unfolded: three elements.)
        let elements = Array(node.elements)
        if elements.count == 3, elements[1].is(AssignmentExprSyntax.self),
            elements[0].trimmedDescription.hasSuffix("conf.logHandler"),
            elements[2].tokens(viewMode: .sourceAccurate).contains(where: {
                $0.text == "fatalError" || $0.text == "preconditionFailure"
            })
        {
            report(
                node,
                "this log handler traps on events it does not name: Pledge logs more (unhandledRejection, "
                    + "badInput, …); log or ignore the others instead")
        }
        return .visitChildren
    }

    override func visit(_ node: SwitchExprSyntax) -> SyntaxVisitorContinueKind {
        // A switch over LogEvent names its cases; Pledge has more, so one without default fails.
        let events: Set<String> = [
            "waitOnMainThread", "pendingPromiseDeallocated", "pendingGuaranteeDeallocated", "cauterized",
        ]
        var namesAnEvent = false
        var hasDefault = false
        for case .switchCase(let switchCase) in node.cases {
            if switchCase.label.is(SwitchDefaultLabelSyntax.self) { hasDefault = true }
            for token in switchCase.label.tokens(viewMode: .sourceAccurate) where events.contains(token.text) {
                namesAnEvent = true
            }
        }
        if namesAnEvent, !hasDefault {
            report(node, "a switch over LogEvent without default: Pledge has more events; add `default: print(event)`")
        }
        return .visitChildren
    }

    override func visit(_ node: LabeledExprSyntax) -> SyntaxVisitorContinueKind {
        if let reference = node.expression.as(DeclReferenceExprSyntax.self),
            reference.baseName.text == "when" || reference.baseName.text == "race"
        {
            let closure = reference.baseName.text == "when" ? "{ when(fulfilled: $0) }" : "{ race($0) }"
            report(
                node,
                "\(reference.baseName.text) passed as a function: Pledge's takes file:line: too; write a closure, "
                    + closure)
        }
        return .visitChildren
    }

    private static func enclosingExtension(of node: some SyntaxProtocol) -> ExtensionDeclSyntax? {
        var current = node.parent
        while let node = current {
            if let extensionDecl = node.as(ExtensionDeclSyntax.self) { return extensionDecl }
            if node.asProtocol((any DeclGroupSyntax).self) != nil || node.is(FunctionDeclSyntax.self) { return nil }
            current = node.parent
        }
        return nil
    }

    /// The last name of a type: `Promise` for `PromiseKit.Promise`, `Result` for `Result<T>`.
    static func typeName(_ type: TypeSyntax) -> String {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return type.trimmedDescription
    }

    /// Whether `type` is a function type not marked `@Sendable` (`@escaping` or optional alike).
    static func isPlainClosure(_ type: TypeSyntax) -> Bool {
        var type = type
        var attributes: [String] = []
        while true {
            if let attributed = type.as(AttributedTypeSyntax.self) {
                attributes += attributed.attributes.compactMap {
                    $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription
                }
                type = attributed.baseType
            } else if let optional = type.as(OptionalTypeSyntax.self) {
                type = optional.wrappedType
            } else if let implicit = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                type = implicit.wrappedType
            } else if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
                let only = tuple.elements.first
            {
                type = only.type
            } else {
                break
            }
        }
        return type.is(FunctionTypeSyntax.self) && !attributes.contains("Sendable")
    }
}
