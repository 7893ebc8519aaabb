"""The exception classes of the ``yaql`` package, with the same hierarchy,
constructor arguments, messages and attributes."""


class YaqlException(Exception):
    pass


class ResolutionError(YaqlException):
    pass


class FunctionResolutionError(ResolutionError):
    pass


class MethodResolutionError(ResolutionError):
    pass


class NoFunctionRegisteredException(FunctionResolutionError):
    def __init__(self, name):
        super().__init__(f'Unknown function "{name}"')


class NoMethodRegisteredException(MethodResolutionError):
    def __init__(self, name, receiver):
        super().__init__(f'Unknown method "{name}" for receiver {receiver}')


class NoMatchingFunctionException(FunctionResolutionError):
    def __init__(self, name):
        super().__init__(f'No function "{name}" matches supplied arguments')


class NoMatchingMethodException(MethodResolutionError):
    def __init__(self, name, receiver):
        super().__init__(f'No method "{name}" for receiver {receiver} '
                         'matches supplied arguments')


class AmbiguousFunctionException(FunctionResolutionError):
    def __init__(self, name):
        super().__init__(f'Ambiguous function "{name}"')


class AmbiguousMethodException(MethodResolutionError):
    def __init__(self, name, receiver):
        super().__init__(f'Ambiguous method "{name}" for receiver {receiver}')


class ArgumentException(YaqlException):
    def __init__(self, argument_name):
        self.parameter_name = argument_name
        super().__init__(f'Invalid argument {argument_name}')


class MappingTranslationException(YaqlException):
    def __init__(self):
        super().__init__('Cannot convert mapping to keyword argument')


class ArgumentValueException(YaqlException):
    def __init__(self):
        super().__init__()


class DuplicateParameterDecoratorException(YaqlException):
    def __init__(self, function_name, param_name):
        super().__init__(f"Function '{function_name}' has multiple "
                         f"decorators for parameter '{param_name}'")


class InvalidMethodException(YaqlException):
    def __init__(self, function_name):
        super().__init__(
            f"Function '{function_name}' cannot be called as a method")


class NoParameterFoundException(YaqlException):
    def __init__(self, function_name, param_name):
        super().__init__(f"Function '{function_name}' has no parameter "
                         f"called '{param_name}'")


class YaqlParsingException(YaqlException):
    def __init__(self, value, position, message):
        self.value = value
        self.position = position
        self.message = message
        super().__init__(message)


class YaqlGrammarException(YaqlParsingException):
    def __init__(self, expr, value, position):
        if position is None:
            message = 'Parse error: unexpected end of statement'
        else:
            message = (f"Parse error: unexpected '{value}' at position "
                       f"{position} of expression '{expr}'")
        super().__init__(value, position, message)


class YaqlLexicalException(YaqlParsingException):
    def __init__(self, value, position):
        super().__init__(value, position, f"Lexical error: illegal character "
                                          f"'{value}' at position {position}")


class InvalidOperatorTableException(YaqlException):
    def __init__(self, op):
        super().__init__(
            f"Invalid records in operator table for operator '{op}")


class WrappedException(YaqlException):
    def __init__(self, exception):
        self.wrapped = exception
        super().__init__(str(exception))


class CollectionTooLargeException(YaqlException):
    def __init__(self, count):
        super().__init__(f'Collection length exceeds {count} elements')


class MemoryQuotaExceededException(YaqlException):
    def __init__(self):
        super().__init__('Expression consumed too much memory')
