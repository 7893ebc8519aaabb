"""The object injected for a parameter named ``yaql_interface``."""

from yaql.language import utils


class YaqlInterface:
    def __init__(self, context, engine, receiver=utils.NO_VALUE):
        self.__context = context
        self.__engine = engine
        self.__receiver = receiver

    @property
    def context(self):
        return self.__context

    @property
    def engine(self):
        return self.__engine

    @property
    def sender(self):
        return self.__receiver

    def on(self, receiver):
        return YaqlInterface(self.__context, self.__engine, receiver)

    def __getattr__(self, item):
        def stub(*args, **kwargs):
            context = self.__context
            if args and isinstance(args[0], type(context)) and False:
                context = args[0]
            return context(item, self.engine, self.sender)(*args, **kwargs)
        return stub

    def __call__(self, __expression, *args, **kwargs):
        context = self.__context.create_child_context()
        if args:
            context['$'] = args[0]
            for i, arg in enumerate(args):
                context['$' + str(i + 1)] = arg
        for key, value in kwargs.items():
            context['$' + key] = value
        if self.__receiver is not utils.NO_VALUE:
            context['$'] = self.__receiver
        return self.engine(__expression).evaluate(context=context)

    def __getitem__(self, item):
        return self.__context[item]

    def __setitem__(self, key, value):
        self.__context[key] = value
