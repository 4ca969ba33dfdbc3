import SwiftSyntax

/// The rewrites, each matched on the syntax alone and each producing code it does not match
/// again (so that a second run changes nothing):
///
/// - the modules: `import PromiseKit`/`PMKFoundation` (any attributes or import kind),
///   `#if canImport(…)`, and `PromiseKit.`/`PMKFoundation.` qualifiers (`PromiseKit.Result` is
///   Swift's `Result` now);
/// - PromiseKit's `Result<T>` to `Result<T, Error>`, and its cases `.fulfilled`/`.rejected` to
///   `.success`/`.failure`, unless the file declares a type `Result` or such cases of its own;
///   in an extension of it, its `T` to `Success`;
/// - PromiseKit 6's spellings: `always` to `ensure`, `PMKError.flatMap` to `compactMap`,
///   `Promise(value:)` and `Guarantee(value:)` to `.value(…)`; `hang(p)` to `p.wait()`;
/// - a bridge an extension declares that Pledge has (`Promise.async()`,
///   `Resolver.resolve(_: Swift.Result<T, Error>)`): removed;
/// - an extension's operator that shadows Pledge's (`func pipe(to block: @escaping (Result<T>) ->
///   Void) -> Self`, say): its closure parameters become `@Sendable`, so that calls with a closure
///   reach Pledge's operator again, as they reached PromiseKit's, instead of recursing.
final class Rewriter: SyntaxRewriter {
    static let modules = ["PromiseKit": "Pledge", "PMKFoundation": "PledgeFoundation"]

    let file: SourceFile
    /// What the file declares itself, which the rewrites leave alone.
    let own: Reporter.Declarations
    private(set) var changes: [Finding] = []
    /// Inside an extension of PromiseKit's `Result<T>`, whose `T` is `Success` now.
    private var inResultExtension = false

    init(_ file: SourceFile, own: Reporter.Declarations) {
        self.file = file
        self.own = own
        super.init(viewMode: .sourceAccurate)
    }

    private func note(_ node: some SyntaxProtocol, _ message: String) {
        changes.append(file.finding(message, at: node))
    }

    // MARK: Names

    override func visit(_ token: TokenSyntax) -> TokenSyntax {
        guard case .identifier(let name) = token.tokenKind, let new = replacement(for: token, named: name) else {
            return token
        }
        note(token, "\(name) → \(new)")
        return token.with(\.tokenKind, .identifier(new))
    }

    private func replacement(for token: TokenSyntax, named name: String) -> String? {
        guard let parent = token.parent else { return nil }
        if inResultExtension, name == "T",
            parent.is(IdentifierTypeSyntax.self) || parent.is(DeclReferenceExprSyntax.self)
        {
            return "Success"
        }
        if let module = Self.modules[name] {
            if parent.is(ImportPathComponentSyntax.self) { return module }
            if let reference = parent.as(DeclReferenceExprSyntax.self) {
                if isCanImportArgument(reference) { return module }
                if let access = reference.parent?.as(MemberAccessExprSyntax.self), access.base?.id == reference.id {
                    return access.declName.baseName.text == "Result" ? "Swift" : module
                }
            }
            if let type = parent.as(IdentifierTypeSyntax.self), let member = type.parent?.as(MemberTypeSyntax.self),
                member.baseType.id == type.id
            {
                return member.name.text == "Result" ? "Swift" : module
            }
            return nil
        }
        guard let access = memberAccess(named: token) else { return nil }
        switch name {
        case "fulfilled", "rejected":
            guard !own.cases.contains(name), !own.types.contains("Result"), isResult(access.base) else { return nil }
            return name == "fulfilled" ? "success" : "failure"
        case "always":
            guard access.base != nil, isCalled(access) else { return nil }
            return "ensure"
        case "flatMap":
            guard !own.cases.contains(name) else { return nil }
            if let base = access.base {
                guard base.as(DeclReferenceExprSyntax.self)?.baseName.text == "PMKError" else { return nil }
            } else {
                // An implicit `.flatMap` is an enum case: in a pattern, only an error's.
                guard isInPattern(access) else { return nil }
            }
            return "compactMap"
        default:
            return nil
        }
    }

    /// The member access whose name `token` is.
    private func memberAccess(named token: TokenSyntax) -> MemberAccessExprSyntax? {
        guard let reference = token.parent?.as(DeclReferenceExprSyntax.self),
            let access = reference.parent?.as(MemberAccessExprSyntax.self), access.declName.id == reference.id
        else { return nil }
        return access
    }

    private func isCanImportArgument(_ reference: DeclReferenceExprSyntax) -> Bool {
        guard let argument = reference.parent?.as(LabeledExprSyntax.self),
            let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self)
        else { return false }
        return call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "canImport"
    }

    private func isCalled(_ access: MemberAccessExprSyntax) -> Bool {
        access.parent?.as(FunctionCallExprSyntax.self)?.calledExpression.id == access.id
    }

    private func isInPattern(_ node: some SyntaxProtocol) -> Bool {
        var current = node.parent
        while let node = current {
            if node.is(ExpressionPatternSyntax.self) || node.is(CatchItemSyntax.self) { return true }
            if node.is(CodeBlockItemSyntax.self) || node.is(MemberBlockItemSyntax.self) { return false }
            current = node.parent
        }
        return false
    }

    /// Whether `base`, before a case name, is PromiseKit's `Result`: none (`.fulfilled`),
    /// `Result`, `Result<T>`, `PromiseKit.Result` or `Swift.Result`.
    private func isResult(_ base: ExprSyntax?) -> Bool {
        guard let base else { return true }
        if let reference = base.as(DeclReferenceExprSyntax.self) { return reference.baseName.text == "Result" }
        if let specialized = base.as(GenericSpecializationExprSyntax.self) { return isResult(specialized.expression) }
        if let access = base.as(MemberAccessExprSyntax.self), access.declName.baseName.text == "Result",
            let module = access.base?.as(DeclReferenceExprSyntax.self)?.baseName.text
        {
            return module == "PromiseKit" || module == "Swift"
        }
        return false
    }

    // MARK: Result<T>

    override func visit(_ node: ExtensionDeclSyntax) -> DeclSyntax {
        guard Reporter.extendsPromiseKitResult(node), !own.types.contains("Result"), !Reporter.declaresGenericT(node)
        else { return super.visit(node) }
        inResultExtension = true
        defer { inResultExtension = false }
        return super.visit(node)
    }

    override func visit(_ node: GenericArgumentClauseSyntax) -> GenericArgumentClauseSyntax {
        let visited = super.visit(node)
        guard node.arguments.count == 1, !own.types.contains("Result"), namesResult(node.parent) else {
            return visited
        }
        var arguments = Array(visited.arguments)
        guard let only = arguments.first else { return visited }
        arguments[0] = only.with(\.trailingComma, .commaToken(trailingTrivia: .space))
        let error = IdentifierTypeSyntax(name: .identifier("Error"))
        arguments.append(GenericArgumentSyntax(argument: .type(TypeSyntax(error))))
        note(node, "Result<\(only.argument.trimmedDescription)> → Result<\(only.argument.trimmedDescription), Error>")
        return visited.with(\.arguments, GenericArgumentListSyntax(arguments))
    }

    /// Whether the generic clause's owner is PromiseKit's `Result`, as a type or an expression.
    private func namesResult(_ owner: Syntax?) -> Bool {
        guard let owner else { return false }
        if let type = owner.as(IdentifierTypeSyntax.self) { return type.name.text == "Result" }
        if let member = owner.as(MemberTypeSyntax.self) {
            let module = member.baseType.as(IdentifierTypeSyntax.self)?.name.text
            return member.name.text == "Result" && (module == "PromiseKit" || module == "Swift")
        }
        if let specialized = owner.as(GenericSpecializationExprSyntax.self) { return isResult(specialized.expression) }
        return false
    }

    // MARK: Bridges Pledge has

    override func visit(_ node: MemberBlockItemListSyntax) -> MemberBlockItemListSyntax {
        let visited = super.visit(node)
        var kept: [MemberBlockItemSyntax] = []
        for (original, item) in zip(node, visited) {
            if let function = original.decl.as(FunctionDeclSyntax.self), Reporter.duplicatesPledge(function) {
                note(
                    original,
                    "removed \(Reporter.signature(of: function)), which Pledge declares itself: kept, it would "
                        + "shadow Pledge's (and call itself where it forwards to it)")
            } else {
                kept.append(item)
            }
        }
        return kept.count == visited.count ? visited : MemberBlockItemListSyntax(kept)
    }

    // MARK: Shadowing operators

    override func visit(_ node: FunctionDeclSyntax) -> DeclSyntax {
        let shadowing = Set(Reporter.shadowingParameters(of: node).map(\.id))
        let visited = super.visit(node)
        guard !shadowing.isEmpty, var function = visited.as(FunctionDeclSyntax.self) else { return visited }
        var parameters = Array(function.signature.parameterClause.parameters)
        for (index, original) in node.signature.parameterClause.parameters.enumerated()
        where shadowing.contains(original.id) {
            guard let sendable = Self.sendable(parameters[index].type) else { continue }
            parameters[index] = parameters[index].with(\.type, sendable)
            note(
                original,
                "\(Reporter.signature(of: node)) shadowed Pledge's: its closure `\(original.firstName.text)` is "
                    + "@Sendable now, so that calls reach Pledge's operator instead of recursing")
        }
        function.signature.parameterClause.parameters = FunctionParameterListSyntax(parameters)
        return DeclSyntax(function)
    }

    /// `type`, a closure type, marked `@Sendable`; `nil` for a form it leaves to a person.
    static func sendable(_ type: TypeSyntax) -> TypeSyntax? {
        let attribute = AttributeSyntax(
            atSign: .atSignToken(), attributeName: TypeSyntax(IdentifierTypeSyntax(name: .identifier("Sendable"))),
            trailingTrivia: .space)
        if var attributed = type.as(AttributedTypeSyntax.self) {
            attributed.attributes.append(.attribute(attribute))
            return TypeSyntax(attributed)
        }
        if let function = type.as(FunctionTypeSyntax.self) {
            let attributed = AttributedTypeSyntax(
                leadingTrivia: function.leadingTrivia, specifiers: [], attributes: [.attribute(attribute)],
                baseType: TypeSyntax(function.with(\.leadingTrivia, [])))
            return TypeSyntax(attributed)
        }
        return nil
    }

    // MARK: Promise(value:)

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        let visited = super.visit(node)
        if isHang(node), let call = visited.as(FunctionCallExprSyntax.self), let argument = call.arguments.first {
            note(node, "hang(…) → (…).wait()")
            return Self.waiting(on: argument.expression, trivia: call.leadingTrivia, call.trailingTrivia)
        }
        guard isValueInitializer(node), var call = visited.as(FunctionCallExprSyntax.self),
            var argument = call.arguments.first
        else { return visited }
        let type = call.calledExpression.trimmedDescription
        argument.label = nil
        argument.colon = nil
        call.calledExpression = ExprSyntax(
            MemberAccessExprSyntax(
                base: call.calledExpression, period: .periodToken(),
                declName: DeclReferenceExprSyntax(baseName: .identifier("value"))))
        call.arguments = LabeledExprListSyntax([argument])
        note(node, "\(type)(value:) → \(type).value(…)")
        return ExprSyntax(call)
    }

    /// `hang(promise)`, which Pledge has no use for: `wait()` serves a tool's main thread.
    private func isHang(_ call: FunctionCallExprSyntax) -> Bool {
        call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "hang"
            && call.arguments.count == 1 && call.arguments.first?.label == nil && call.trailingClosure == nil
            && !own.functions.contains("hang")
    }

    /// `expression.wait()`, with `expression` in parentheses unless it is a name, a call or a
    /// member.
    private static func waiting(on expression: ExprSyntax, trivia leading: Trivia, _ trailing: Trivia) -> ExprSyntax {
        var base = expression.trimmed
        let plain =
            base.is(DeclReferenceExprSyntax.self) || base.is(FunctionCallExprSyntax.self)
            || base.is(MemberAccessExprSyntax.self)
        if !plain {
            base = ExprSyntax(
                TupleExprSyntax(elements: LabeledExprListSyntax([LabeledExprSyntax(expression: base)])))
        }
        let wait = MemberAccessExprSyntax(
            base: base, period: .periodToken(), declName: DeclReferenceExprSyntax(baseName: .identifier("wait")))
        let call = FunctionCallExprSyntax(
            calledExpression: ExprSyntax(wait), leftParen: .leftParenToken(), arguments: [],
            rightParen: .rightParenToken())
        return ExprSyntax(call.with(\.leadingTrivia, leading).with(\.trailingTrivia, trailing))
    }

    /// `Promise(value: x)` or `Guarantee<T>(value: x)`, PromiseKit 6's spelling of `.value(x)`.
    private func isValueInitializer(_ call: FunctionCallExprSyntax) -> Bool {
        guard call.arguments.count == 1, call.arguments.first?.label?.text == "value", call.trailingClosure == nil
        else { return false }
        var callee = call.calledExpression
        if let specialized = callee.as(GenericSpecializationExprSyntax.self) { callee = specialized.expression }
        guard let name = callee.as(DeclReferenceExprSyntax.self)?.baseName.text else { return false }
        return (name == "Promise" || name == "Guarantee") && !own.types.contains(name)
    }
}
