//! Static schema tables: what AWS's Smithy models say about every shape, as `static` data.
//!
//! The code generator writes one `static` [`Shape`] per model shape and one [`Service`] per
//! service; codecs and the constraint engine walk these tables instead of carrying per-shape
//! code. Statics may refer to each other (also in cycles), so a [`Member`] points straight at
//! its target shape.
//!
//! ```
//! use stratus_core::schema::{Constraints, Shape, ShapeType};
//! static NAME: Shape = Shape {
//!     constraints: Constraints { length: Some((Some(3), Some(255))), ..Constraints::NONE },
//!     ..Shape::simple("TableName", ShapeType::String)
//! };
//! assert_eq!(NAME.constraints.length, Some((Some(3), Some(255))));
//! ```

use stratus_pattern::Pattern;

/// The Smithy shape types Stratus models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeType {
    /// `blob`: raw bytes (base64 in JSON and XML, a byte string in CBOR).
    Blob,
    /// `boolean`.
    Boolean,
    /// `string`: UTF-8 text (also a string with the legacy `@enum` trait).
    String,
    /// `enum`: a string from the set in [`Constraints::enum_values`].
    Enum,
    /// `byte`: an 8-bit signed integer.
    Byte,
    /// `short`: a 16-bit signed integer.
    Short,
    /// `integer`: a 32-bit signed integer.
    Integer,
    /// `intEnum`: a 32-bit integer from the set in [`Constraints::int_enum_values`].
    IntEnum,
    /// `long`: a 64-bit signed integer.
    Long,
    /// `float`: a 32-bit IEEE 754 number.
    Float,
    /// `double`: a 64-bit IEEE 754 number.
    Double,
    /// `bigInteger`: an integer of any size, carried as its decimal text.
    BigInteger,
    /// `bigDecimal`: a decimal of any size and precision, carried as its text.
    BigDecimal,
    /// `timestamp`: an instant, written in the member's [`TimestampFormat`].
    Timestamp,
    /// `document`: untyped JSON-like data; only the JSON protocols carry it.
    Document,
    /// `list`: its one member is the element (see [`Shape::list_member`]).
    List,
    /// `map`: its two members are the key and the value (see [`Shape::map_members`]).
    Map,
    /// `structure`: named members, each optional unless `@required`.
    Structure,
    /// `union`: exactly one of its members is set.
    Union,
}

impl ShapeType {
    /// Whether the shape holds an integral number.
    pub fn is_integral(self) -> bool {
        matches!(
            self,
            ShapeType::Byte | ShapeType::Short | ShapeType::Integer | ShapeType::IntEnum | ShapeType::Long
        )
    }

    /// Whether `n` fits an integral shape of this type (a wider number is a type mismatch, not a
    /// constraint violation). Non-integral types hold any `i64`.
    pub fn holds(self, n: i64) -> bool {
        match self {
            ShapeType::Byte => i8::try_from(n).is_ok(),
            ShapeType::Short => i16::try_from(n).is_ok(),
            ShapeType::Integer | ShapeType::IntEnum => i32::try_from(n).is_ok(),
            _ => true,
        }
    }
}

/// Constraint traits of a shape (or of a member, overriding its target's).
#[derive(Debug, Clone, Copy)]
pub struct Constraints {
    /// `@length(min, max)`: Unicode code points for strings, bytes for blobs, entries for
    /// lists and maps.
    pub length: Option<(Option<u64>, Option<u64>)>,
    /// `@range(min, max)` for numbers.
    pub range: Option<(Option<f64>, Option<f64>)>,
    /// `@pattern` for strings.
    pub pattern: Option<&'static Pattern>,
    /// Wire values of an `enum` shape (or of the legacy `@enum` trait), in model order.
    pub enum_values: &'static [&'static str],
    /// The `@internal` ones among `enum_values`: accepted, but not listed in messages.
    pub internal_enum_values: &'static [&'static str],
    /// Values of an `intEnum` shape.
    pub int_enum_values: &'static [i32],
    /// `@uniqueItems` on a list.
    pub unique_items: bool,
}

impl Constraints {
    /// No constraints at all.
    pub const NONE: Constraints = Constraints {
        length: None,
        range: None,
        pattern: None,
        enum_values: &[],
        internal_enum_values: &[],
        int_enum_values: &[],
        unique_items: false,
    };
}

/// `@timestampFormat` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampFormat {
    /// `date-time`: RFC 3339 text in UTC, e.g. `1985-04-12T23:20:50.52Z`.
    DateTime,
    /// `http-date`: the IMF-fixdate of RFC 7231, e.g. `Tue, 29 Apr 2014 18:30:38 GMT`.
    HttpDate,
    /// `epoch-seconds`: seconds since 1970-01-01T00:00:00Z as a number, fractions allowed.
    EpochSeconds,
}

/// `@xmlNamespace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XmlNamespace {
    /// The namespace URI an element declares with `xmlns`.
    pub uri: &'static str,
    /// The prefix it is declared under (`xmlns:prefix`); `None` declares the default namespace.
    pub prefix: Option<&'static str>,
}

/// Where a member travels in an HTTP message (REST protocols).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpBinding {
    /// In the body, as a member of the serialized structure.
    Body,
    /// `@httpLabel`: a `{label}` of the URI.
    Label,
    /// `@httpQuery("name")`.
    Query(&'static str),
    /// `@httpQueryParams`: every otherwise unbound query parameter.
    QueryParams,
    /// `@httpHeader("name")`.
    Header(&'static str),
    /// `@httpPrefixHeaders("prefix")`.
    PrefixHeaders(&'static str),
    /// `@httpPayload`: the member is the whole body.
    Payload,
    /// `@httpResponseCode`.
    ResponseCode,
}

impl HttpBinding {
    /// Whether a member bound this way travels in a response body: labels and query
    /// parameters exist only in requests, so on an output they bind nothing.
    pub fn in_response_body(self) -> bool {
        matches!(
            self,
            HttpBinding::Body | HttpBinding::Label | HttpBinding::Query(_) | HttpBinding::QueryParams
        )
    }
}

/// Whether an error is the caller's fault or the service's (`@error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `@error("client")`: the request was wrong; sent again unchanged it fails again.
    Client,
    /// `@error("server")`: the service failed; the same request may succeed later.
    Server,
}

/// What a modelled error structure answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorInfo {
    /// Who is at fault, from `@error`; it also picks the default `http_status`.
    pub fault: Fault,
    /// `@httpError`, or the protocol default (400 client, 500 server).
    pub http_status: u16,
    /// `@awsQueryError(code, httpResponseCode)`: the code and status Query (and
    /// Query-compatible) protocols use instead of the shape name.
    pub query_error: Option<(&'static str, u16)>,
}

/// One member of a structure or union; the `member` of a list; `key`/`value` of a map.
#[derive(Debug)]
pub struct Member {
    /// The member's name in the model (`member` for a list, `key`/`value` for a map): the key
    /// or element it travels under unless `json_name`/`xml_name` say otherwise, and its step in
    /// validation message paths.
    pub name: &'static str,
    /// The shape of the member's value.
    pub target: &'static Shape,
    /// `@required`: validation rejects input that leaves the member out.
    pub required: bool,
    /// `@jsonName`: the key restJson1 bodies use instead of `name` (the awsJson protocols
    /// ignore it).
    pub json_name: Option<&'static str>,
    /// `@xmlName`: the element or attribute name XML bodies use instead of `name` (and the
    /// step of Query parameter names).
    pub xml_name: Option<&'static str>,
    /// `@xmlAttribute`: travels as an attribute of the enclosing element, not a child.
    pub xml_attribute: bool,
    /// `@xmlFlattened`: a list's or map's entries are repeated straight inside the parent
    /// element, with no wrapper element of their own.
    pub xml_flattened: bool,
    /// `@xmlNamespace` on the member: the namespace its element declares.
    pub xml_namespace: Option<XmlNamespace>,
    /// Where the member travels in a REST request or response; [`HttpBinding::Body`] when it
    /// carries no HTTP binding trait (and always, for the other protocols).
    pub http: HttpBinding,
    /// `@timestampFormat` on the member itself; `None` leaves it to the target's, then to the
    /// protocol's default (see [`Member::timestamp_format`]).
    pub timestamp_format: Option<TimestampFormat>,
    /// `@idempotencyToken`: clients fill the member with a fresh UUID when the caller leaves it
    /// out.
    pub idempotency_token: bool,
    /// `@hostLabel`: the member's value fills a `{label}` of the operation's `@endpoint`
    /// host prefix.
    pub host_label: bool,
    /// Constraint traits applied on the member itself, already merged over its target's.
    pub constraints: Option<&'static Constraints>,
    /// `@default` (a null default is none).
    pub default: Option<DefaultValue>,
}

/// A member's `@default`, as static data; [`crate::value::fill_defaults`] makes values of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// A `boolean`'s default.
    Bool(bool),
    /// The default of an integral shape (or an `intEnum`).
    Int(i64),
    /// The default of a `float` or `double`.
    Float(f64),
    /// The text of a string, enum or big number (or a string document).
    String(&'static str),
    /// A blob's default, already decoded from the model's base64.
    Blob(&'static [u8]),
    /// Epoch seconds.
    Timestamp(i64),
    /// An empty list (or list document).
    EmptyList,
    /// An empty map (or map document).
    EmptyMap,
}

impl Member {
    /// A member with no traits.
    pub const fn plain(name: &'static str, target: &'static Shape) -> Member {
        Member {
            name,
            target,
            required: false,
            json_name: None,
            xml_name: None,
            xml_attribute: false,
            xml_flattened: false,
            xml_namespace: None,
            http: HttpBinding::Body,
            timestamp_format: None,
            idempotency_token: false,
            host_label: false,
            constraints: None,
            default: None,
        }
    }

    /// The constraints that apply to this member's value.
    pub fn constraints(&self) -> &'static Constraints {
        match self.constraints {
            Some(c) => c,
            None => &self.target.constraints,
        }
    }

    /// The timestamp format bound on the member, else on its target.
    pub fn timestamp_format(&self) -> Option<TimestampFormat> {
        self.timestamp_format.or(self.target.timestamp_format)
    }
}

/// One shape of a model.
#[derive(Debug)]
pub struct Shape {
    /// The shape's name without its namespace.
    pub name: &'static str,
    /// The shape's type, which says how to read `members` and which constraints apply.
    pub kind: ShapeType,
    /// Structure and union members in model order; `[member]` for a list; `[key, value]`
    /// for a map; empty otherwise.
    pub members: &'static [Member],
    /// The shape's constraint traits; a member's own override them (see [`Member::constraints`]).
    pub constraints: Constraints,
    /// `@sparse` on a list or map: null entries are kept.
    pub sparse: bool,
    /// `@timestampFormat` on a timestamp shape; a member's own takes precedence.
    pub timestamp_format: Option<TimestampFormat>,
    /// `@xmlName` on the shape: the element name of an XML body whose root it is (members
    /// name their own elements).
    pub xml_name: Option<&'static str>,
    /// `@xmlNamespace` on the shape: the namespace its element declares.
    pub xml_namespace: Option<XmlNamespace>,
    /// `@mediaType` of a string or blob.
    pub media_type: Option<&'static str>,
    /// `@streaming` on a blob or union.
    pub streaming: bool,
    /// `@sensitive`: validation messages do not echo the value.
    pub sensitive: bool,
    /// `@error` on a structure.
    pub error: Option<ErrorInfo>,
}

/// Shapes are statics: two are equal when they are the same static.
impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Shape {}

impl Shape {
    /// A shape with no traits and no members.
    pub const fn simple(name: &'static str, kind: ShapeType) -> Shape {
        Shape {
            name,
            kind,
            members: &[],
            constraints: Constraints::NONE,
            sparse: false,
            timestamp_format: None,
            xml_name: None,
            xml_namespace: None,
            media_type: None,
            streaming: false,
            sensitive: false,
            error: None,
        }
    }

    /// The index of the member named `name`.
    pub fn member_index(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }

    /// The element member of a list.
    pub fn list_member(&self) -> &'static Member {
        &self.members[0]
    }

    /// The key and value members of a map.
    pub fn map_members(&self) -> (&'static Member, &'static Member) {
        (&self.members[0], &self.members[1])
    }
}

/// The wire protocols AWS serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `aws.protocols#awsJson1_0`: POST `/`, operation in `X-Amz-Target`, JSON bodies.
    AwsJson1_0,
    /// `aws.protocols#awsJson1_1`: as 1.0, under its own content type.
    AwsJson1_1,
    /// `aws.protocols#awsQuery`: form-encoded requests naming an `Action`, XML answers.
    AwsQuery,
    /// `aws.protocols#ec2Query`: EC2's variant of awsQuery.
    Ec2Query,
    /// `aws.protocols#restJson1`: HTTP-bound members, JSON bodies.
    RestJson1,
    /// `aws.protocols#restXml`: HTTP-bound members, XML bodies.
    RestXml,
    /// `smithy.protocols#rpcv2Cbor`: POST `/service/{Service}/operation/{Operation}`, CBOR bodies.
    RpcV2Cbor,
}

impl Protocol {
    /// The protocol's name as Smithy spells it.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::AwsJson1_0 => "awsJson1_0",
            Protocol::AwsJson1_1 => "awsJson1_1",
            Protocol::AwsQuery => "awsQuery",
            Protocol::Ec2Query => "ec2Query",
            Protocol::RestJson1 => "restJson1",
            Protocol::RestXml => "restXml",
            Protocol::RpcV2Cbor => "rpcv2Cbor",
        }
    }
}

/// One segment of a REST URI pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathSegment {
    /// Literal text the segment must equal.
    Literal(&'static str),
    /// `{Name}`: one path segment bound to a member.
    Label(&'static str),
    /// `{Name+}`: the rest of the path, slashes included.
    Greedy(&'static str),
}

/// `@http` of an operation, parsed: the REST route table entry.
#[derive(Debug, Clone, Copy)]
pub struct HttpRoute {
    /// The HTTP method, upper case, e.g. `PUT`.
    pub method: &'static str,
    /// The URI pattern's path, one entry per `/`-separated segment.
    pub path: &'static [PathSegment],
    /// Literal query parameters the URI pattern requires (`?uploads`, `?x-id=GetObject`).
    pub query: &'static [(&'static str, Option<&'static str>)],
    /// The success status code.
    pub code: u16,
}

/// One operation of a service.
#[derive(Debug)]
pub struct Operation {
    /// The operation shape's name without its namespace, e.g. `PutItem`: the `Action` of Query
    /// protocols and the `X-Amz-Target` suffix of JSON ones.
    pub name: &'static str,
    /// The input structure (`smithy.api#Unit` when the model gives none).
    pub input: &'static Shape,
    /// The output structure (`smithy.api#Unit` when the model gives none).
    pub output: &'static Shape,
    /// The errors the operation may answer: its own, then the service's shared ones.
    pub errors: &'static [&'static Shape],
    /// `@http`, for routing REST requests; `None` for an operation without it.
    pub http: Option<HttpRoute>,
    /// Whether AWS serves the operation to an unsigned request: the model gives it no auth
    /// scheme (`@auth([])`) or makes signing optional (`@optionalAuth`), as STS's
    /// AssumeRoleWithWebIdentity.
    pub unsigned: bool,
}

/// How a service reports constraint violations (its validation error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidationStyle {
    /// The error code, e.g. `ValidationException`.
    pub code: &'static str,
    /// The HTTP status of the validation error.
    pub http_status: u16,
    /// A different code for a missing required member (SQS and CloudWatch answer
    /// `MissingParameter`).
    pub missing_code: Option<&'static str>,
    /// Member paths start at `<operation>Input` (API Gateway writes
    /// `createRestApiInput.apiKeySource`).
    pub path_from_input: bool,
    /// Pattern violations quote the pattern without the `^…$` the Smithy model wraps it in,
    /// as DynamoDB, STS and Lambda answer (`[a-zA-Z0-9_.-]+` for `^[a-zA-Z0-9_.-]+$`);
    /// others, EventBridge among them, quote it as modelled.
    pub unanchored_patterns: bool,
    /// A lone missing top-level member is worded "The request must contain the parameter
    /// `Name`." (SQS, over both its protocols), not as a constraint violation.
    pub missing_parameter_message: bool,
    /// The Smithy framework's `ValidationException` shape, for services whose model lists it
    /// (the protocol test services): violations are then answered as that modelled error, in
    /// the framework's wording.
    pub framework_error: Option<&'static Shape>,
}

/// A service: identity, protocols, operations and error conventions.
#[derive(Debug)]
pub struct Service {
    /// The SDK id as the model spells it, e.g. `DynamoDB`.
    pub sdk_id: &'static str,
    /// The model's namespace, e.g. `com.amazonaws.dynamodb`.
    pub namespace: &'static str,
    /// The service shape's name, e.g. `DynamoDB_20120810` (the `X-Amz-Target` prefix of the
    /// JSON protocols).
    pub shape_name: &'static str,
    /// The service shape's `version` (the API version, e.g. `2012-08-10`): the `Version`
    /// parameter of Query requests and part of their default XML namespace.
    pub version: &'static str,
    /// The SigV4 signing name.
    pub signing_name: &'static str,
    /// `endpointPrefix` of `aws.api#service`, the host's first label (`sqs` in
    /// `sqs.us-east-1.amazonaws.com`).
    pub endpoint_prefix: &'static str,
    /// Protocols the service answers, the model's own first.
    pub protocols: &'static [Protocol],
    /// `@awsQueryCompatible`: JSON errors carry the Query error code in a header.
    pub query_compatible: bool,
    /// The service's `@xmlNamespace` (or the manifest's), the namespace of its XML answers;
    /// `None` lets Query protocols make one from `endpoint_prefix` and `version`.
    pub xml_namespace: Option<XmlNamespace>,
    /// Every operation, sorted by name so [`Service::operation`] can search them.
    pub operations: &'static [Operation],
    /// How the service reports input that breaks its constraints.
    pub validation: ValidationStyle,
    /// Where the service's answers depart from its protocol's general rules.
    pub departures: Departures,
    /// SHA-256 of the model file the tables were generated from.
    pub model_sha256: &'static str,
    /// The IAM actions, resources and condition keys of each operation
    /// ([`crate::authz`]).
    pub authorization: &'static crate::authz::Authorization,
}

/// Where a service's answers depart from its protocol's general rules: what its model's
/// customization traits say, and what `models/manifest.toml` adds where the model is silent.
/// The protocols read these flags; none of them names a service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departures {
    /// `@restXml(noErrorWrapping: true)`: errors are a bare `<Error>` document.
    pub bare_xml_errors: bool,
    /// Operations marked `@s3UnwrappedXmlOutput`: the output's one body member is the
    /// document's root element.
    pub unwrapped_xml_outputs: &'static [&'static str],
    /// Answers are in S3's envelope (manifest: `s3_envelope`): a host id (`x-amz-id-2`) beside
    /// `x-amz-request-id` and no `x-amzn-RequestId`, `Server: AmazonS3`, and XML documents
    /// that open with a declaration.
    pub s3_envelope: bool,
    /// Operations whose flattened `Versions` and `DeleteMarkers` lists are written as one
    /// sequence in listing order rather than one list after the other (manifest:
    /// `interleaved_versions`).
    pub interleaved_versions: &'static [&'static str],
    /// Output members the service leaves out of an operation's answers while they hold their
    /// `@default`, though the model requires them, as `(operation, member)` (manifest:
    /// `omitted_default_members`; IAM's ListServiceSpecificCredentials answers no
    /// `IsTruncated` for a complete listing).
    pub omitted_default_members: &'static [(&'static str, &'static str)],
    /// Operations answered with another status than the model's `@http` code, as
    /// `(operation, status)` (manifest: `answer_statuses`; S3's PutBucketPolicy: 204).
    pub answer_statuses: &'static [(&'static str, u16)],
    /// Query error documents carry an empty `<Detail/>` after the message, as all of SQS's
    /// do (manifest: `query_error_detail`).
    pub query_error_detail: bool,
    /// The messages modelled errors are worded with over the Query protocol, by the error's
    /// shape name (manifest: `query_error_messages`; SQS's `QueueDoesNotExist` is "The
    /// specified queue does not exist for this wsdl version." there).
    pub query_error_messages: &'static [(&'static str, &'static str)],
}

impl Departures {
    /// A service that follows its protocol throughout.
    pub const NONE: Departures = Departures {
        bare_xml_errors: false,
        unwrapped_xml_outputs: &[],
        s3_envelope: false,
        interleaved_versions: &[],
        omitted_default_members: &[],
        answer_statuses: &[],
        query_error_detail: false,
        query_error_messages: &[],
    };

    /// The message an error of shape `shape` is worded with over the Query protocol, when
    /// it is not the one its operations give.
    pub fn query_message(&self, shape: &str) -> Option<&'static str> {
        self.query_error_messages
            .iter()
            .find(|(name, _)| *name == shape)
            .map(|(_, message)| *message)
    }

    /// Whether `op`'s output is its one body member as the document's root.
    pub fn unwraps_output(&self, op: &str) -> bool {
        self.unwrapped_xml_outputs.contains(&op)
    }

    /// The status `op` answers with when it is not the model's.
    pub fn answer_status(&self, op: &str) -> Option<u16> {
        self.answer_statuses
            .iter()
            .find(|(name, _)| *name == op)
            .map(|(_, status)| *status)
    }

    /// Whether `op` writes its versions and delete markers as one sequence.
    pub fn interleaves_versions(&self, op: &str) -> bool {
        self.interleaved_versions.contains(&op)
    }

    /// The output members `op`'s answers leave out while they hold their default.
    pub fn omitted_default_members<'a>(&'a self, op: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.omitted_default_members
            .iter()
            .filter(move |(o, _)| *o == op)
            .map(|(_, member)| *member)
    }
}

impl Service {
    /// The operation named `name` (operations are generated sorted by name).
    pub fn operation(&self, name: &str) -> Option<&'static Operation> {
        let i = self.operations.binary_search_by(|op| op.name.cmp(name)).ok()?;
        Some(&self.operations[i])
    }
}
