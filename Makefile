# Stratus — the commands a developer and CI run. `make help` lists them.

AWS_MODELS_DIR ?= ../shared/aws-models
CARGO ?= cargo
MODELS_JSON := models/json
CODEGEN := $(CARGO) run --release --quiet -p stratus-codegen --

.PHONY: help models generate check-generated run build test lint bench

help:
	@echo "make run              build and run the emulator on 127.0.0.1:4566"
	@echo "make test             run every test"
	@echo "make models           copy the pinned AWS models from AWS_MODELS_DIR (REPIN=1 to accept new ones)"
	@echo "make generate         regenerate generated/ from the models"
	@echo "make check-generated  fail if generated/ differs from what the models generate"
	@echo "make lint             rustfmt and clippy, warnings as errors"
	@echo "make bench            criterion benchmarks"

models:
	$(CODEGEN) sync --manifest models/manifest.toml --from $(AWS_MODELS_DIR) --to $(MODELS_JSON) $(if $(REPIN),--repin)

generate: models
	$(CODEGEN) generate --manifest models/manifest.toml --models $(MODELS_JSON) --out generated

check-generated: models
	@tmp=$$(mktemp -d) && \
	$(CODEGEN) generate --manifest models/manifest.toml --models $(MODELS_JSON) --out $$tmp > /dev/null && \
	if diff -r generated $$tmp > $$tmp.diff; then echo "generated/ is up to date"; rm -rf $$tmp $$tmp.diff; \
	else head -50 $$tmp.diff; echo "generated/ differs from the models: run make generate"; rm -rf $$tmp $$tmp.diff; exit 1; fi

run:
	$(CARGO) run --release -- $(ARGS)

build:
	$(CARGO) build --release

test:
	$(CARGO) test --workspace --release

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings

bench:
	$(CARGO) bench --workspace
