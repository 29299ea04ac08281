# Stratus — the commands a developer and CI run. `make help` lists them.

AWS_MODELS_DIR ?= ../shared/aws-models-2026-08
CARGO ?= cargo
MODELS_JSON := models/json
VENV := .venv
PYTHON ?= python3
CODEGEN := $(CARGO) run --release --quiet -p stratus-codegen --
# `make models-diff` compares FROM (the pinned copies in models/json) with TO (the models a
# re-pin would take).
FROM ?= $(MODELS_JSON)
TO ?= $(AWS_MODELS_DIR)

.PHONY: help models models-diff generate check-generated run build test protocol-tests lint bench bench-sqs bench-dynamodb bench-kms bench-secretsmanager bench-ssm bench-kinesis bench-s3 bench-s3-large bench-lambda bench-sqs-lambda

help:
	@echo "make run              build and run the emulator on 127.0.0.1:4566 (ARGS=... to pass flags)"
	@echo "make test             run every test (creates .venv with boto3, awscli, pytest)"
	@echo "make protocol-tests   run the Smithy protocol compliance tests (../shared/smithy-protocol-tests)"
	@echo "make models           copy the pinned AWS models from AWS_MODELS_DIR (REPIN=1 to accept new ones)"
	@echo "make models-diff      what TO's models change against FROM's (default: the pinned ones)"
	@echo "make generate         regenerate generated/ from the models"
	@echo "make check-generated  fail if generated/ differs from what the models generate"
	@echo "make lint             rustfmt and clippy, warnings as errors"
	@echo "make bench            criterion benchmarks"
	@echo "make bench-sqs        SQS throughput: stratus (strict, ephemeral) and moto's server side by side"
	@echo "make bench-dynamodb   DynamoDB throughput, the same way"
	@echo "make bench-kms        KMS Encrypt/Decrypt throughput, the same way"
	@echo "make bench-secretsmanager  Secrets Manager GetSecretValue throughput, the same way"
	@echo "make bench-ssm        SSM GetParameter/PutParameter throughput, the same way"
	@echo "make bench-kinesis    Kinesis PutRecords/GetRecords throughput, the same way"
	@echo "make bench-s3         S3 throughput (PUT and GET of 1 KiB and 16 MiB objects), the same way"
	@echo "make bench-s3-large   a 1 GiB S3 object up and down, with the server's peak memory"
	@echo "make bench-lambda     Lambda cold starts, warm invokes and the idle footprint through the binary"
	@echo "make bench-sqs-lambda how fast an SQS event source mapping (BatchSize 10) empties a queue into a function"

models:
	$(CODEGEN) sync --manifest models/manifest.toml --from $(AWS_MODELS_DIR) --to $(MODELS_JSON) $(if $(REPIN),--repin)

models-diff: models
	$(CODEGEN) diff --from $(FROM) --to $(TO) --services services

generate: models
	$(CODEGEN) generate --manifest models/manifest.toml --models $(MODELS_JSON) --out generated

check-generated: models
	@tmp=$$(mktemp -d) && \
	$(CODEGEN) generate --manifest models/manifest.toml --models $(MODELS_JSON) --out $$tmp > /dev/null && \
	if diff -r generated $$tmp > $$tmp.diff; then echo "generated/ is up to date"; rm -rf $$tmp $$tmp.diff; \
	else head -50 $$tmp.diff; echo "generated/ differs from the models: run make generate"; rm -rf $$tmp $$tmp.diff; exit 1; fi

run:
	$(CARGO) run --release -- $(ARGS)

# The emulator and the load generator the side-by-side benchmarks drive.
build:
	$(CARGO) build --release -p stratus -p stratus-loadgen

test: $(VENV)/installed protocol-tests
	$(CARGO) test --workspace --release --exclude stratus-protocol-tests
	# The binaries with the tests' features: a plain `cargo build` resolves dependency features
	# without the dev-dependencies' and rebuilds most of the tree (about 5 minutes in CI).
	$(CARGO) build --workspace --release --exclude stratus-protocol-tests --bins --tests
	STRATUS_BIN=$(CURDIR)/target/release/stratus $(VENV)/bin/pytest -q -n 2 --dist loadfile tests/python

protocol-tests:
	$(CARGO) test --release -p stratus-protocol-tests

# The Python AWS clients (boto3, the AWS CLI) and pytest, pinned, in a local virtualenv.
$(VENV)/installed: tests/python/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
	touch $@

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings

bench:
	$(CARGO) bench --workspace

bench-sqs bench-dynamodb bench-kms bench-s3 bench-secretsmanager bench-ssm bench-kinesis: bench-%: $(VENV)/installed build
	STRATUS_BIN=$(CURDIR)/target/release/stratus STRATUS_LOADGEN=$(CURDIR)/target/release/stratus-loadgen $(VENV)/bin/python benches/$*_throughput.py $(ARGS)

bench-s3-large: $(VENV)/installed build
	STRATUS_BIN=$(CURDIR)/target/release/stratus $(VENV)/bin/python benches/s3_large_object.py $(ARGS)

bench-lambda: $(VENV)/installed build
	STRATUS_BIN=$(CURDIR)/target/release/stratus $(VENV)/bin/python benches/lambda_functions.py $(ARGS)

bench-sqs-lambda: $(VENV)/installed build
	STRATUS_BIN=$(CURDIR)/target/release/stratus $(VENV)/bin/python benches/sqs_lambda_throughput.py $(ARGS)
