# Convenience targets; each calls the script of the same name (scripts/ works without make).
.PHONY: build demo test clean
build:
	bash scripts/build
demo:
	bash scripts/demo
test:
	bash scripts/test
clean:
	rm -rf build out
