//! `operations.rs`: the operation enum, per-operation error enums, the service trait, the
//! dispatcher from values to typed calls, and the `operations!` macro that wires a service's
//! functions to the trait (its contract: `stratus_core::service::wiring`).

use std::fmt::Write as _;

use super::{ServiceGen, HEADER};
use crate::names;
use crate::Error;

/// The service trait's hook for operations answered with an encoded value; no operation's
/// method may take its name.
const ENCODED_HOOK: &str = "encoded_answer";

impl ServiceGen<'_> {
    pub(super) fn operations_rs(&self) -> Result<String, Error> {
        let mut out = format!(
            "{HEADER}\n//! Operations: the enum naming them, their error enums, the service trait and the dispatcher.\n\n\
             use stratus_core as rt;\n\nuse crate::schema;\nuse crate::types::*;\n"
        );
        self.operation_enum(&mut out);
        for op in &self.operations {
            self.error_enum(&mut out, op);
        }
        self.service_trait(&mut out)?;
        self.dispatcher(&mut out);
        self.handler(&mut out);
        self.wiring_macros(&mut out)?;
        Ok(out)
    }

    fn operation_enum(&self, out: &mut String) {
        out.push_str("\n/// Every operation of the service, in the order of `SERVICE.operations`.\n");
        out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\npub enum OperationName {\n");
        for op in &self.operations {
            let _ = writeln!(out, "    {},", op.shape.name());
        }
        out.push_str("}\n\nimpl OperationName {\n    pub const ALL: &'static [OperationName] = &[\n");
        for op in &self.operations {
            let _ = writeln!(out, "        OperationName::{},", op.shape.name());
        }
        out.push_str(
            "    ];\n\n    /// The operation's schema.\n    pub fn schema(self) -> &'static rt::schema::Operation {\n        \
             &schema::SERVICE.operations[self as usize]\n    }\n\n    /// The operation's name as AWS spells it.\n    \
             pub fn name(self) -> &'static str {\n        self.schema().name\n    }\n\n    /// The operation called `name`.\n    \
             pub fn from_name(name: &str) -> Option<OperationName> {\n        \
             let index = schema::SERVICE.operations.binary_search_by(|op| op.name.cmp(name)).ok()?;\n        \
             Some(OperationName::ALL[index])\n    }\n}\n",
        );
    }

    fn error_enum(&self, out: &mut String, op: &super::OperationInfo<'_>) {
        let name = format!("{}Error", op.shape.name());
        let _ = writeln!(
            out,
            "\n/// What {} can fail with.\n#[derive(Debug, Clone, PartialEq)]\npub enum {name} {{",
            op.shape.name()
        );
        for e in &op.errors {
            let ty = &self.type_names[e];
            let _ = writeln!(out, "    {ty}({ty}),");
        }
        out.push_str("    /// An error the model does not list (not implemented, throttling, validation, …).\n    Aws(rt::AwsError),\n}\n");
        let _ = writeln!(
            out,
            "\nimpl From<rt::AwsError> for {name} {{\n    fn from(e: rt::AwsError) -> {name} {{\n        {name}::Aws(e)\n    }}\n}}"
        );
        let _ = writeln!(
            out,
            "\nimpl {name} {{\n    /// The error with its schema, ready to encode (a common error of a modelled code\n    /// becomes that error: [`rt::OperationError::promote`]).\n    \
             pub fn into_operation_error(self) -> rt::OperationError {{\n        match self {{"
        );
        for e in &op.errors {
            let ty = &self.type_names[e];
            let _ = writeln!(
                out,
                "            {name}::{ty}(e) => rt::OperationError::Modeled {{ shape: &schema::{}, value: rt::IntoValue::into_value(e) }},",
                self.const_names[e]
            );
        }
        let modelled: Vec<String> = op
            .errors
            .iter()
            .map(|e| format!("&schema::{}", self.const_names[e]))
            .collect();
        let _ = writeln!(
            out,
            "            {name}::Aws(e) => rt::OperationError::promote(e, &[{}]),\n        }}\n    }}\n}}",
            modelled.join(", ")
        );
    }

    fn service_trait(&self, out: &mut String) -> Result<(), Error> {
        let _ = writeln!(
            out,
            "\n/// The {} service. Every method answers AWS's not-implemented error until a service\n\
             /// implements it.\npub trait {}: Send + Sync + 'static {{",
            self.sdk_id_text(),
            self.trait_name
        );
        for op in &self.operations {
            if names::field_name(op.shape.name()) == ENCODED_HOOK {
                return Err(Error::Unsupported {
                    shape: op.shape.id.clone(),
                    reason: format!("its method would take the name of the trait's `{ENCODED_HOOK}` hook"),
                });
            }
            let (input, output) = (self.rust_type(&op.input)?, self.rust_type(&op.output)?);
            let _ = writeln!(
                out,
                "    fn {}(&self, ctx: &rt::RequestContext, input: {input}) -> impl std::future::Future<Output = Result<{output}, {}Error>> + Send {{\n        \
                 let _ = (ctx, input);\n        async {{ Err(rt::AwsError::not_implemented({:?}).into()) }}\n    }}",
                names::field_name(op.shape.name()),
                op.shape.name(),
                op.shape.name()
            );
        }
        let _ = writeln!(
            out,
            "    /// Answers an operation that the service's `operations!` lists as `encoded` with its\n    \
             /// output value already encoded; hands any other input back for the typed method.\n    \
             fn {ENCODED_HOOK}<'a>(\n        &'a self,\n        ctx: &'a rt::RequestContext,\n        \
             operation: OperationName,\n        input: rt::Value,\n    ) -> rt::service::EncodedAnswer<'a> {{\n        \
             let _ = (ctx, operation);\n        rt::service::EncodedAnswer::Typed(input)\n    }}"
        );
        out.push_str("}\n");
        Ok(())
    }

    fn handler(&self, out: &mut String) {
        let t = &self.trait_name;
        let _ = writeln!(
            out,
            "\n/// Serves an implementation of [`{t}`] through the type-erased [`rt::service::ServiceHandler`].\n\
             pub struct Handler<S>(pub S);\n\n\
             impl<S: {t}> rt::service::ServiceHandler for Handler<S> {{\n    \
             fn schema(&self) -> &'static rt::schema::Service {{\n        &schema::SERVICE\n    }}\n\n    \
             fn implemented(&self) -> bool {{\n        true\n    }}\n\n    \
             fn call<'a>(\n        &'a self,\n        ctx: &'a rt::RequestContext,\n        \
             operation: &'static rt::schema::Operation,\n        input: rt::Value,\n    \
             ) -> rt::service::BoxFuture<'a, Result<rt::Value, rt::OperationError>> {{\n        \
             Box::pin(async move {{\n            match OperationName::from_name(operation.name) {{\n                \
             Some(name) => dispatch(&self.0, ctx, name, input).await,\n                \
             None => Err(rt::AwsError::internal(format!(\"{{}} is not an operation of {}\", operation.name)).into()),\n            \
             }}\n        }})\n    }}\n}}",
            self.sdk_id_text()
        );
    }

    fn dispatcher(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\n/// Calls `operation` on `service` with a decoded, validated input value and returns the\n\
             /// output value, or the error ready to encode.\npub async fn dispatch<S: {}>(\n    service: &S,\n    \
             ctx: &rt::RequestContext,\n    operation: OperationName,\n    input: rt::Value,\n) -> Result<rt::Value, rt::OperationError> {{\n    \
             let input = match service.{ENCODED_HOOK}(ctx, operation, input) {{\n        \
             rt::service::EncodedAnswer::Answered(answer) => return answer.await,\n        \
             rt::service::EncodedAnswer::Typed(input) => input,\n    }};\n    \
             match operation {{",
            self.trait_name
        );
        for op in &self.operations {
            let name = op.shape.name();
            let _ = writeln!(
                out,
                "        OperationName::{name} => service\n            .{}(ctx, rt::FromValue::from_value(input)?)\n            .await\n            \
                 .map(rt::IntoValue::into_value)\n            .map_err({name}Error::into_operation_error),",
                names::field_name(name)
            );
        }
        out.push_str("    }\n}\n");
    }

    /// `operations!`, which implements the service trait from rows `method => function`, and
    /// the hidden `__operation!`, one arm per operation handing a row its types.
    fn wiring_macros(&self, out: &mut String) -> Result<(), Error> {
        let (t, sdk_id) = (&self.trait_name, self.sdk_id_text());
        let example = self.operations.first().map_or_else(String::new, |op| {
            let method = names::field_name(op.shape.name());
            format!("///     {method} => ops::{method},\n")
        });
        let rows = "$($method:ident $(in $runner:ident)? => $function:path),* $(,)?";
        let typed = "$($crate::__operation! { $method typed [$($runner)?] $function })*";
        let _ = writeln!(
            out,
            "\n/// Implements [`{t}`] for a service type from rows `method => function` (or\n\
             /// `method in runner => function`, a synchronous body the service's method `runner`\n\
             /// runs), then optionally `; encoded {{ … }}`, operations answered with an encoded\n\
             /// value; no row restates a type the model gives. The contract:\n\
             /// `stratus_core::service::wiring`.\n///\n/// ```ignore\n/// operations! {{\n///     MyService;\n\
             {example}/// }}\n/// ```\n#[macro_export]\nmacro_rules! operations {{\n    \
             ($service:ty; {rows}) => {{\n        impl $crate::{t} for $service {{\n            {typed}\n        }}\n    }};\n    \
             ($service:ty; {rows}; encoded {{ $($encoded:ident $(in $encoded_runner:ident)? => $encoded_function:path),* $(,)? }}) => {{\n        \
             impl $crate::{t} for $service {{\n            {typed}\n\n            \
             fn {ENCODED_HOOK}<'a>(\n                &'a self,\n                ctx: &'a $crate::__rt::RequestContext,\n                \
             operation: $crate::OperationName,\n                input: $crate::__rt::Value,\n            \
             ) -> $crate::__rt::service::EncodedAnswer<'a> {{\n                \
             $($crate::__operation! {{ $encoded encoded [$($encoded_runner)?] $encoded_function; self ctx operation input }})*\n                \
             $crate::__rt::service::EncodedAnswer::Typed(input)\n            }}\n        }}\n    }};\n}}"
        );
        out.push_str(
            "\n/// Each operation's method, name and types, for `operations!`.\n#[doc(hidden)]\n#[macro_export]\nmacro_rules! __operation {\n",
        );
        for op in &self.operations {
            let (name, method) = (op.shape.name(), names::field_name(op.shape.name()));
            let _ = writeln!(
                out,
                "    ({method} $($row:tt)*) => {{\n        $crate::__rt::__wire_operation! {{\n            \
                 [{method} $crate::OperationName::{name}, {}, {}, $crate::{name}Error] $($row)*\n        }}\n    }};",
                self.macro_type(&op.input)?,
                self.macro_type(&op.output)?,
            );
        }
        let _ = writeln!(
            out,
            "    ($method:ident $($row:tt)*) => {{\n        \
             ::core::compile_error!(::core::concat!(\"`\", ::core::stringify!($method), \"` is not an operation of {sdk_id}\"));\n    }};\n}}"
        );
        Ok(())
    }

    /// An operation's input or output type as the macros name it, from any crate.
    fn macro_type(&self, id: &str) -> Result<String, Error> {
        let ty = self.rust_type(id)?;
        Ok(match ty.strip_prefix("rt::") {
            Some(runtime) => format!("$crate::__rt::{runtime}"),
            None => format!("$crate::{ty}"),
        })
    }
}
