// The validation error of Smithy's server frameworks (namespace smithy.framework), which the
// protocol compliance models import but do not define. Added to a model set that refers to it.
$version: "2.0"

namespace smithy.framework

@error("client")
structure ValidationException {
    @required
    message: String

    fieldList: ValidationExceptionFieldList
}

structure ValidationExceptionField {
    @required
    path: String

    @required
    message: String
}

list ValidationExceptionFieldList {
    member: ValidationExceptionField
}
