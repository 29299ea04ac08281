//! The generated IAM authorization tables (`Service::authorization`): every operation of every
//! service has an entry, the built services' entries name AWS's actions and resources, and
//! the evaluator never panics, whatever the input.

use stratus_core::authz::{evaluate, RequiredAction, Scope};
use stratus_core::schema::{Service, Shape, ShapeType};
use stratus_core::Value;
use stratus_test_support::Rng;

const SCOPE: Scope<'static> = Scope {
    partition: "aws",
    region: "us-east-1",
    account: "111122223333",
};

fn service(sdk_id: &str) -> &'static Service {
    stratus_gen_registry::find(sdk_id).unwrap_or_else(|| panic!("no service {sdk_id}"))
}

/// A structure value of `shape` with the named members set.
fn fields(shape: &Shape, set: &[(&str, Value)]) -> Value {
    let mut slots = vec![None; shape.members.len()];
    for (name, value) in set {
        let i = shape
            .member_index(name)
            .unwrap_or_else(|| panic!("{} has no member {name}", shape.name));
        slots[i] = Some(value.clone());
    }
    Value::Struct(slots)
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// What `op` of `sdk_id` needs for an input with the named members set.
fn needs(sdk_id: &str, op: &str, set: &[(&str, Value)]) -> Vec<RequiredAction> {
    let svc = service(sdk_id);
    let operation = svc.operation(op).unwrap_or_else(|| panic!("{sdk_id} has no {op}"));
    let entry = svc
        .authorization
        .operation(svc, operation)
        .expect("every operation has an entry");
    evaluate(entry, &fields(operation.input, set), &SCOPE)
}

/// (action, resources) pairs, the shape most assertions read.
fn summary(needed: &[RequiredAction]) -> Vec<(&str, Vec<&str>)> {
    needed
        .iter()
        .map(|a| (a.action, a.resources.iter().map(String::as_str).collect()))
        .collect()
}

#[test]
fn every_operation_of_every_service_has_an_entry() {
    for (sdk_id, svc) in stratus_gen_registry::SERVICES {
        let table = svc.authorization;
        assert!(!table.prefix.is_empty(), "{sdk_id} has no IAM prefix");
        assert_eq!(
            table.operations.len(),
            svc.operations.len(),
            "{sdk_id}: one entry per operation"
        );
        for (op, entry) in svc.operations.iter().zip(table.operations) {
            assert!(!entry.actions.is_empty(), "{sdk_id} {}: no action", op.name);
            for rule in entry.actions {
                assert!(rule.action.contains(':'), "{sdk_id} {}: {}", op.name, rule.action);
            }
        }
    }
}

#[test]
fn s3_copy_object_reads_the_source_and_writes_the_target() {
    let needed = needs(
        "s3",
        "CopyObject",
        &[
            ("Bucket", s("target")),
            ("Key", s("copies/a.txt")),
            ("CopySource", s("/source/dir/a%20b.txt?versionId=3")),
        ],
    );
    assert_eq!(
        summary(&needed),
        [
            ("s3:GetObjectVersion", vec!["arn:aws:s3:::source/dir/a b.txt"]),
            ("s3:PutObject", vec!["arn:aws:s3:::target/copies/a.txt"]),
        ]
    );
    assert_eq!(needed[0].conditions, [("s3:versionid", vec!["3".to_string()])]);
    assert_eq!(
        needed[1].conditions,
        [(
            "s3:x-amz-copy-source",
            vec!["/source/dir/a%20b.txt?versionId=3".to_string()]
        )]
    );
    let current = needs(
        "s3",
        "CopyObject",
        &[("Bucket", s("target")), ("Key", s("k")), ("CopySource", s("source/k"))],
    );
    assert_eq!(
        summary(&current),
        [
            ("s3:GetObject", vec!["arn:aws:s3:::source/k"]),
            ("s3:PutObject", vec!["arn:aws:s3:::target/k"]),
        ]
    );
}

#[test]
fn s3_copy_object_with_an_acl_needs_put_object_acl_too() {
    let needed = needs(
        "s3",
        "CopyObject",
        &[
            ("Bucket", s("b")),
            ("Key", s("k")),
            ("CopySource", s("src/k")),
            ("ACL", s("public-read")),
        ],
    );
    let actions: Vec<&str> = needed.iter().map(|a| a.action).collect();
    assert_eq!(actions, ["s3:GetObject", "s3:PutObject", "s3:PutObjectAcl"]);
}

#[test]
fn s3_head_object_is_get_object_and_a_version_is_get_object_version() {
    let plain = needs("s3", "HeadObject", &[("Bucket", s("b")), ("Key", s("k"))]);
    assert_eq!(summary(&plain), [("s3:GetObject", vec!["arn:aws:s3:::b/k"])]);
    let versioned = needs(
        "s3",
        "HeadObject",
        &[("Bucket", s("b")), ("Key", s("k")), ("VersionId", s("v1"))],
    );
    assert_eq!(summary(&versioned), [("s3:GetObjectVersion", vec!["arn:aws:s3:::b/k"])]);
}

#[test]
fn s3_list_objects_v2_is_list_bucket_with_its_prefix_condition() {
    let needed = needs(
        "s3",
        "ListObjectsV2",
        &[
            ("Bucket", s("logs")),
            ("Prefix", s("2026/")),
            ("MaxKeys", Value::Int(100)),
        ],
    );
    assert_eq!(summary(&needed), [("s3:ListBucket", vec!["arn:aws:s3:::logs"])]);
    assert_eq!(
        needed[0].conditions,
        [
            ("s3:max-keys", vec!["100".to_string()]),
            ("s3:prefix", vec!["2026/".to_string()]),
        ]
    );
}

#[test]
fn s3_renamed_actions() {
    let b = [("Bucket", s("b"))];
    for (op, action) in [
        ("ListObjectVersions", "s3:ListBucketVersions"),
        ("GetBucketLifecycleConfiguration", "s3:GetLifecycleConfiguration"),
        ("HeadBucket", "s3:ListBucket"),
        ("DeleteBucketCors", "s3:PutBucketCORS"),
    ] {
        assert_eq!(
            summary(&needs("s3", op, &b)),
            [(action, vec!["arn:aws:s3:::b"])],
            "{op}"
        );
    }
    let object = [("Bucket", s("b")), ("Key", s("k"))];
    for op in ["CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload"] {
        assert_eq!(
            summary(&needs("s3", op, &object)),
            [("s3:PutObject", vec!["arn:aws:s3:::b/k"])],
            "{op}"
        );
    }
    assert_eq!(
        summary(&needs("s3", "ListBuckets", &[])),
        [("s3:ListAllMyBuckets", vec!["*"])]
    );
}

#[test]
fn s3_delete_objects_deletes_each_key() {
    let svc = service("s3");
    let op = svc.operation("DeleteObjects").unwrap();
    let delete_shape = op.input.members[op.input.member_index("Delete").unwrap()].target;
    let objects_shape = delete_shape.members[delete_shape.member_index("Objects").unwrap()].target;
    let identifier = objects_shape.list_member().target;
    let objects = Value::List(vec![
        fields(identifier, &[("Key", s("a"))]),
        fields(identifier, &[("Key", s("b/c"))]),
    ]);
    let delete = fields(delete_shape, &[("Objects", objects)]);
    let needed = needs("s3", "DeleteObjects", &[("Bucket", s("bk")), ("Delete", delete)]);
    assert_eq!(
        summary(&needed),
        [("s3:DeleteObject", vec!["arn:aws:s3:::bk/a", "arn:aws:s3:::bk/b/c"])]
    );
}

#[test]
fn sqs_send_message_batch_is_send_message_on_the_queue_of_its_url() {
    let needed = needs(
        "sqs",
        "SendMessageBatch",
        &[("QueueUrl", s("http://localhost:4566/444455556666/orders.fifo"))],
    );
    assert_eq!(
        summary(&needed),
        [(
            "sqs:SendMessage",
            vec!["arn:aws:sqs:us-east-1:444455556666:orders.fifo"]
        )]
    );
    let created = needs("sqs", "CreateQueue", &[("QueueName", s("jobs"))]);
    assert_eq!(
        summary(&created),
        [("sqs:CreateQueue", vec!["arn:aws:sqs:us-east-1:111122223333:jobs"])]
    );
    assert_eq!(
        summary(&needs("sqs", "ListQueues", &[])),
        [("sqs:ListQueues", vec!["*"])]
    );
}

#[test]
fn dynamodb_get_item_by_table_name_and_by_arn() {
    let by_name = needs("dynamodb", "GetItem", &[("TableName", s("Music"))]);
    assert_eq!(
        summary(&by_name),
        [(
            "dynamodb:GetItem",
            vec!["arn:aws:dynamodb:us-east-1:111122223333:table/Music"]
        )]
    );
    let arn = "arn:aws:dynamodb:eu-west-1:444455556666:table/Music";
    let by_arn = needs("dynamodb", "GetItem", &[("TableName", s(arn))]);
    assert_eq!(summary(&by_arn), [("dynamodb:GetItem", vec![arn])]);
}

#[test]
fn dynamodb_query_of_an_index_is_on_the_index() {
    let needed = needs(
        "dynamodb",
        "Query",
        &[("TableName", s("Music")), ("IndexName", s("ByArtist"))],
    );
    assert_eq!(
        summary(&needed),
        [(
            "dynamodb:Query",
            vec!["arn:aws:dynamodb:us-east-1:111122223333:table/Music/index/ByArtist"]
        )]
    );
}

#[test]
fn dynamodb_batch_get_item_names_each_table() {
    let items = Value::Map(vec![
        ("A".to_string(), Value::Struct(Vec::new())),
        ("B".to_string(), Value::Struct(Vec::new())),
    ]);
    let needed = needs("dynamodb", "BatchGetItem", &[("RequestItems", items)]);
    assert_eq!(
        summary(&needed),
        [(
            "dynamodb:BatchGetItem",
            vec![
                "arn:aws:dynamodb:us-east-1:111122223333:table/A",
                "arn:aws:dynamodb:us-east-1:111122223333:table/B"
            ]
        )]
    );
}

#[test]
fn lambda_invoke_by_partial_arn_and_qualifier() {
    let partial = needs(
        "lambda",
        "Invoke",
        &[("FunctionName", s("444455556666:function:resize"))],
    );
    assert_eq!(
        summary(&partial),
        [(
            "lambda:InvokeFunction",
            vec!["arn:aws:lambda:us-east-1:444455556666:function:resize"]
        )]
    );
    let qualified = needs(
        "lambda",
        "Invoke",
        &[("FunctionName", s("resize")), ("Qualifier", s("prod"))],
    );
    assert_eq!(
        summary(&qualified),
        [(
            "lambda:InvokeFunction",
            vec!["arn:aws:lambda:us-east-1:111122223333:function:resize:prod"]
        )]
    );
}

#[test]
fn lambda_create_function_passes_its_role() {
    let role = "arn:aws:iam::111122223333:role/lambda-exec";
    let needed = needs(
        "lambda",
        "CreateFunction",
        &[("FunctionName", s("resize")), ("Role", s(role))],
    );
    assert_eq!(
        summary(&needed),
        [
            (
                "lambda:CreateFunction",
                vec!["arn:aws:lambda:us-east-1:111122223333:function:resize"]
            ),
            ("iam:PassRole", vec![role]),
        ]
    );
}

#[test]
fn iam_create_user_is_on_the_user_with_its_path() {
    let needed = needs(
        "iam",
        "CreateUser",
        &[("UserName", s("Bob")), ("Path", s("/division/team/"))],
    );
    assert_eq!(
        summary(&needed),
        [(
            "iam:CreateUser",
            vec!["arn:aws:iam::111122223333:user/division/team/Bob"]
        )]
    );
    let no_path = needs("iam", "CreateUser", &[("UserName", s("Bob"))]);
    assert_eq!(
        summary(&no_path),
        [("iam:CreateUser", vec!["arn:aws:iam::111122223333:user/Bob"])]
    );
}

#[test]
fn iam_attach_role_policy_is_on_the_role_with_the_policy_as_condition() {
    let policy = "arn:aws:iam::aws:policy/ReadOnlyAccess";
    let needed = needs(
        "iam",
        "AttachRolePolicy",
        &[("RoleName", s("ops")), ("PolicyArn", s(policy))],
    );
    assert_eq!(
        summary(&needed),
        [("iam:AttachRolePolicy", vec!["arn:aws:iam::111122223333:role/ops"])]
    );
    assert_eq!(needed[0].conditions, [("iam:PolicyARN", vec![policy.to_string()])]);
}

#[test]
fn sts_assume_role_is_on_the_role() {
    let role = "arn:aws:iam::444455556666:role/deploy";
    let needed = needs(
        "sts",
        "AssumeRole",
        &[("RoleArn", s(role)), ("RoleSessionName", s("ci"))],
    );
    assert_eq!(summary(&needed), [("sts:AssumeRole", vec![role])]);
    assert_eq!(needed[0].conditions, [("sts:RoleSessionName", vec!["ci".to_string()])]);
}

#[test]
fn sts_assume_role_with_tags_needs_tag_session() {
    let svc = service("sts");
    let op = svc.operation("AssumeRole").unwrap();
    let tag_shape = op.input.members[op.input.member_index("Tags").unwrap()]
        .target
        .list_member()
        .target;
    let tags = Value::List(vec![fields(tag_shape, &[("Key", s("team")), ("Value", s("a"))])]);
    let needed = needs(
        "sts",
        "AssumeRole",
        &[
            ("RoleArn", s("arn:aws:iam::1:role/r")),
            ("RoleSessionName", s("x")),
            ("Tags", tags),
        ],
    );
    let actions: Vec<&str> = needed.iter().map(|a| a.action).collect();
    assert_eq!(actions, ["sts:AssumeRole", "sts:TagSession"]);
    assert!(needed[1]
        .conditions
        .contains(&("aws:TagKeys", vec!["team".to_string()])));
}

#[test]
fn api_gateway_is_authorized_by_method_and_path() {
    let needed = needs(
        "api-gateway",
        "GetResource",
        &[("restApiId", s("a1b2")), ("resourceId", s("r9"))],
    );
    assert_eq!(
        summary(&needed),
        [(
            "apigateway:GET",
            vec!["arn:aws:apigateway:us-east-1::/restapis/a1b2/resources/r9"]
        )]
    );
}

const STRINGS: &[&str] = &[
    "",
    "/",
    "a",
    "arn:",
    "arn:aws:s3:::b/k",
    "123456789012:function:f",
    "123456789012:function:",
    "http://h/1/q",
    "http://",
    "%",
    "%z",
    "%e2%82",
    "b/",
    "/b/k?versionId=",
    "?versionId=",
    "${Account}",
    "}",
    "${",
    "日本",
];

/// A value loosely following `shape`: members present or not, sometimes of the wrong kind.
fn arbitrary(rng: &mut Rng, shape: &Shape, depth: usize) -> Value {
    if depth > 6 || rng.below(20) == 0 {
        return match rng.below(6) {
            0 => Value::Null,
            1 => Value::Int(rng.next_u64() as i64),
            2 => Value::Bool(rng.below(2) == 0),
            3 => Value::Float(f64::NAN),
            4 => Value::List(Vec::new()),
            _ => Value::String(STRINGS[rng.below(STRINGS.len())].to_string()),
        };
    }
    match shape.kind {
        ShapeType::Structure => Value::Struct(
            shape
                .members
                .iter()
                .map(|m| (rng.below(3) != 0).then(|| arbitrary(rng, m.target, depth + 1)))
                .collect(),
        ),
        ShapeType::Union if !shape.members.is_empty() => {
            let i = rng.below(shape.members.len() + 1);
            let target = shape.members.get(i).unwrap_or(&shape.members[0]).target;
            Value::Union(i, Box::new(arbitrary(rng, target, depth + 1)))
        }
        ShapeType::List => Value::List(
            (0..rng.below(4))
                .map(|_| arbitrary(rng, shape.list_member().target, depth + 1))
                .collect(),
        ),
        ShapeType::Map => Value::Map(
            (0..rng.below(4))
                .map(|_| {
                    let key = STRINGS[rng.below(STRINGS.len())].to_string();
                    (key, arbitrary(rng, shape.map_members().1.target, depth + 1))
                })
                .collect(),
        ),
        ShapeType::Boolean => Value::Bool(rng.below(2) == 0),
        t if t.is_integral() => Value::Int(rng.next_u64() as i64 % 2000),
        _ => Value::String(STRINGS[rng.below(STRINGS.len())].to_string()),
    }
}

#[test]
fn evaluation_never_panics_on_arbitrary_inputs() {
    let mut rng = Rng(0xa07b_2026_1201_0001);
    let scopes = [
        SCOPE,
        Scope {
            partition: "",
            region: "",
            account: "",
        },
    ];
    let mut evaluated = 0usize;
    for (_, svc) in stratus_gen_registry::SERVICES {
        for (op, entry) in svc.operations.iter().zip(svc.authorization.operations) {
            for round in 0..8 {
                let input = if round == 0 {
                    Value::Null
                } else {
                    arbitrary(&mut rng, op.input, 0)
                };
                let needed = evaluate(entry, &input, &scopes[round % 2]);
                assert!(!needed.is_empty(), "{} {} needs nothing", svc.sdk_id, op.name);
                for action in &needed {
                    assert!(!action.resources.is_empty(), "{} {}", svc.sdk_id, op.name);
                    assert!(action.resources.len() <= stratus_core::authz::MAX_RESOURCES);
                }
                evaluated += 1;
            }
        }
    }
    assert!(evaluated > 10_000, "{evaluated}");
}

#[test]
fn eventbridge_rules_are_named_on_their_bus() {
    let default_bus = needs("eventbridge", "PutRule", &[("Name", s("nightly"))]);
    assert_eq!(
        summary(&default_bus),
        [(
            "events:PutRule",
            vec!["arn:aws:events:us-east-1:111122223333:rule/nightly"]
        )]
    );
    let custom = needs(
        "eventbridge",
        "PutTargets",
        &[("Rule", s("nightly")), ("EventBusName", s("orders"))],
    );
    assert_eq!(
        summary(&custom),
        [(
            "events:PutTargets",
            vec!["arn:aws:events:us-east-1:111122223333:rule/orders/nightly"]
        )]
    );
}

#[test]
fn kms_re_encrypt_is_from_one_key_and_to_another() {
    let needed = needs(
        "kms",
        "ReEncrypt",
        &[
            ("SourceKeyId", s("1234abcd")),
            ("DestinationKeyId", s("arn:aws:kms:us-east-1:111122223333:key/5678")),
        ],
    );
    assert_eq!(
        summary(&needed),
        [
            (
                "kms:ReEncryptFrom",
                vec!["arn:aws:kms:us-east-1:111122223333:key/1234abcd"]
            ),
            ("kms:ReEncryptTo", vec!["arn:aws:kms:us-east-1:111122223333:key/5678"]),
        ]
    );
}

#[test]
fn s3_get_object_attributes_reads_the_object_and_its_attributes() {
    let needed = needs("s3", "GetObjectAttributes", &[("Bucket", s("b")), ("Key", s("k"))]);
    let actions: Vec<&str> = needed.iter().map(|a| a.action).collect();
    assert_eq!(actions, ["s3:GetObject", "s3:GetObjectAttributes"]);
}

#[test]
fn dynamodb_partiql_is_authorized_by_statement_kind() {
    let select = needs(
        "dynamodb",
        "ExecuteStatement",
        &[("Statement", s("SELECT * FROM \"Music\" WHERE Artist = ?"))],
    );
    assert_eq!(
        summary(&select),
        [(
            "dynamodb:PartiQLSelect",
            vec!["arn:aws:dynamodb:us-east-1:111122223333:table/Music"]
        )]
    );
    let update = needs(
        "dynamodb",
        "ExecuteStatement",
        &[("Statement", s("update Music set a = 1"))],
    );
    assert_eq!(
        summary(&update),
        [(
            "dynamodb:PartiQLUpdate",
            vec!["arn:aws:dynamodb:us-east-1:111122223333:table/Music"]
        )]
    );
    let unknown = needs("dynamodb", "ExecuteStatement", &[("Statement", s("EXISTS(x)"))]);
    assert_eq!(summary(&unknown), [("dynamodb:PartiQLSelect", vec!["*"])]);
}
