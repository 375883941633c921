# Seeded random ONNX graphs for kiln's property test (scripts/random-graphs.py):
# chains and DAGs of pointwise, broadcast, transpose, reshape, slice, concat,
# gather, reduction, softmax, layernorm and matmul nodes over random shapes in
# float32, float16 or bfloat16.
"""One seed gives one graph, always the same one (the generator uses only its
own numpy RandomState; no dict or set order matters). `generate(seed)` returns
a `Graph`: nodes, inputs, outputs and initializers whose names all start with
`g<seed>_`, so several graphs can share one ONNX model without clashing, and
`graph.model()` makes a model of that graph alone.

Each graph starts from one random input (rank 1-4, dims drawn from sizes
with tails such as 1, 3, 17, 33, 129) and adds 2-10 nodes. A node's first
operand is the newest value (a chain) or, a third of the time, any earlier
value (a DAG); second operands are other values of the graph when their shape
fits, otherwise new inputs or constants, often of a broadcast shape. Every
value without a user is an output, and so, sometimes, is a value that has
users. Values stay bounded (no Exp or Log of unbounded values, Div only by
1 + |y|) so that float16 results are comparable. Tensors stay under
MAX_ELEMENTS elements so the CPU evaluator is quick.
"""
import functools
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

MAX_ELEMENTS = 1 << 15
DIM_SIZES = [1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 33, 64, 100, 128, 129]
DTYPES = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16,
          "bf16": TensorProto.BFLOAT16}
OPSET = 17

UNARY = ["Relu", "Sigmoid", "Tanh", "Neg", "Abs", "Erf", "Softsign", "LeakyRelu",
         "HardSigmoid", "Sin", "Cos", "Elu"]
BINARY = ["Add", "Sub", "Mul", "Max", "Min", "Div"]
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"]


def bfloat16_bits(values):
    """float32 -> bfloat16 bit patterns (round to nearest even)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def make_tensor(name, dtype, values):
    """A TensorProto of |values| (a float array) stored as |dtype|."""
    values = np.asarray(values, dtype=np.float32)
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = DTYPES[dtype]
    tensor.dims.extend(values.shape)
    if dtype == "f32":
        tensor.raw_data = values.tobytes()
    elif dtype == "f16":
        tensor.raw_data = values.astype(np.float16).tobytes()
    else:
        tensor.raw_data = bfloat16_bits(values).tobytes()
    return tensor


def size(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


class Graph:
    """A random graph under construction; every value has a known static shape."""

    def __init__(self, seed, dtype):
        self.seed = seed
        self.dtype = dtype
        self.rng = np.random.RandomState(seed)
        self.prefix = f"g{seed}_"
        self.nodes, self.inputs, self.initializers = [], [], []
        self.input_shapes = {}
        self.shapes = {}     # value name -> shape, in creation order
        self.users = {}      # value name -> number of users
        self.constants = set()
        self.computed = []   # values produced by nodes, in order
        self.outputs = []
        self.counter = 0

    # --- naming and leaves ------------------------------------------------------

    def name(self, what):
        self.counter += 1
        return f"{self.prefix}{what}{self.counter}"

    def new_input(self, shape):
        name = self.name("in")
        self.inputs.append(helper.make_tensor_value_info(name, DTYPES[self.dtype], shape))
        self.input_shapes[name] = tuple(shape)
        self.shapes[name] = tuple(shape)
        self.users[name] = 0
        return name

    def float_constant(self, shape, low=-1.0, high=1.0):
        name = self.name("w")
        values = self.rng.uniform(low, high, shape).astype(np.float32)
        self.initializers.append(make_tensor(name, self.dtype, values))
        self.constants.add(name)
        self.shapes[name] = tuple(shape)
        self.users[name] = 0
        return name

    def int_constant(self, values):
        name = self.name("c")
        array = np.asarray(values, dtype=np.int64)
        self.initializers.append(onnx.numpy_helper.from_array(array, name))
        return name

    def leaf(self, shape):
        """A new input or, a third of the time, a constant of |shape|."""
        if self.rng.rand() < 0.33:
            return self.float_constant(shape)
        return self.new_input(shape)

    def random_shape(self, rank=None):
        rank = rank if rank is not None else self.rng.randint(1, 5)
        while True:
            shape = [int(self.rng.choice(DIM_SIZES)) for _ in range(rank)]
            if size(shape) <= MAX_ELEMENTS and size(shape) > 1:
                return tuple(shape)

    # --- nodes ------------------------------------------------------------------

    def add_node(self, op, operands, shape, **attributes):
        if not supports(op, self.dtype):
            raise Unsupported(op)
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, operands, [out], name=out, **attributes))
        for operand in operands:
            if operand in self.users:
                self.users[operand] += 1
        self.shapes[out] = tuple(shape)
        self.users[out] = 0
        self.computed.append(out)
        return out

    def pick_value(self):
        """The newest value (a chain) or, a third of the time, any earlier one."""
        values = [v for v in self.shapes if v not in self.constants]
        if self.rng.rand() < 0.67:
            return values[-1]
        return values[self.rng.randint(len(values))]

    def unary(self, x):
        op = UNARY[self.rng.randint(len(UNARY))]
        return self.add_node(op, [x], self.shapes[x])

    def silu(self, x):
        gate = self.add_node("Sigmoid", [x], self.shapes[x])
        return self.add_node("Mul", [x, gate], self.shapes[x])

    def broadcast_partner(self, shape):
        """Another value that broadcasts with |shape|: an existing value of a
        compatible shape, else a new leaf of |shape| with some dims set to 1 or
        leading dims dropped (or one extra leading dim)."""
        fits = [v for v in self.shapes if broadcast_shape(self.shapes[v], shape) == tuple(shape)
                and v != list(self.shapes)[-1]]
        if fits and self.rng.rand() < 0.4:
            return fits[self.rng.randint(len(fits))]
        partner = list(shape)
        choice = self.rng.rand()
        if choice < 0.3:
            pass
        elif choice < 0.6:
            for axis in range(len(partner)):
                if self.rng.rand() < 0.5:
                    partner[axis] = 1
        elif choice < 0.85 and partner:
            partner = partner[self.rng.randint(len(partner)):] or [1]
        elif size(shape) * 3 <= MAX_ELEMENTS:
            partner = [3] + partner
        return self.leaf(partner)

    def binary(self, x):
        op = BINARY[self.rng.randint(len(BINARY))]
        y = self.broadcast_partner(self.shapes[x])
        if self.rng.rand() < 0.5:
            x, y = y, x
        shape = broadcast_shape(self.shapes[x], self.shapes[y])
        if size(shape) > MAX_ELEMENTS:
            return None
        if op == "Div":  # x / (1 + |y|): bounded, never a division by zero
            magnitude = self.add_node("Abs", [y], self.shapes[y])
            one = self.float_constant([], 1.0, 1.0)
            y = self.add_node("Add", [magnitude, one], self.shapes[y])
        return self.add_node(op, [x, y], shape)

    def transpose(self, x):
        shape = self.shapes[x]
        if len(shape) < 2:
            return None
        perm = list(range(len(shape)))
        while perm == sorted(perm):
            perm = list(self.rng.permutation(len(shape)))
        return self.add_node("Transpose", [x], [shape[p] for p in perm],
                             perm=[int(p) for p in perm])

    def reshape(self, x):
        shape = list(self.shapes[x])
        choice = self.rng.rand()
        if choice < 0.4 and len(shape) >= 2:        # merge two neighbouring dims
            axis = self.rng.randint(len(shape) - 1)
            target = shape[:axis] + [shape[axis] * shape[axis + 1]] + shape[axis + 2:]
        elif choice < 0.8 and len(shape) < 5:       # split a dim in two factors
            splittable = [a for a, d in enumerate(shape) if factor(d) is not None]
            if splittable:
                axis = splittable[self.rng.randint(len(splittable))]
                f = factor(shape[axis])
                target = shape[:axis] + [f, shape[axis] // f] + shape[axis + 1:]
            else:
                target = shape + [1]
        else:                                       # flatten to 2-D
            axis = self.rng.randint(len(shape) + 1)
            target = [size(shape[:axis]), size(shape[axis:])]
        spec = list(target)
        if self.rng.rand() < 0.3:                   # let ONNX infer one dim
            spec[self.rng.randint(len(spec))] = -1
        return self.add_node("Reshape", [x, self.int_constant(spec)], target)

    def slice(self, x):
        shape = self.shapes[x]
        if not shape:
            return None
        axis = self.rng.randint(len(shape))
        dim = shape[axis]
        if dim < 2:
            return None
        step = int(self.rng.choice([1, 1, 1, 2, -1]))
        if step > 0:
            start = self.rng.randint(dim - 1)
            end = self.rng.randint(start + 1, dim + 1)
            count = (end - start + step - 1) // step
            starts, ends = start - dim * (self.rng.rand() < 0.3), end
        else:
            start = self.rng.randint(1, dim)
            end = self.rng.randint(-1, start)
            count = start - end
            starts, ends = start, (end if end >= 0 else -dim - 1)
        out = list(shape)
        out[axis] = count
        axis_value = axis - len(shape) if self.rng.rand() < 0.3 else axis
        operands = [x, self.int_constant([starts]), self.int_constant([ends]),
                    self.int_constant([axis_value]), self.int_constant([step])]
        return self.add_node("Slice", operands, out)

    def concat(self, x):
        shape = self.shapes[x]
        if not shape:
            return None
        axis = self.rng.randint(len(shape))
        operands, total = [x], shape[axis]
        for _ in range(self.rng.randint(1, 3)):
            same = [v for v in self.shapes if len(self.shapes[v]) == len(shape) and
                    all(a == b for i, (a, b) in enumerate(zip(self.shapes[v], shape))
                        if i != axis)]
            if same and self.rng.rand() < 0.5:
                other = same[self.rng.randint(len(same))]
            else:
                other_shape = list(shape)
                other_shape[axis] = int(self.rng.choice([1, 2, 3, 5, 16]))
                other = self.leaf(other_shape)
            operands.append(other)
            total += self.shapes[other][axis]
        out = list(shape)
        out[axis] = total
        if size(out) > MAX_ELEMENTS:
            return None
        self.rng.shuffle(operands)
        return self.add_node("Concat", operands, out, axis=axis - len(shape) * (self.rng.rand() < 0.3))

    def gather(self, x):
        shape = self.shapes[x]
        if not shape:
            return None
        axis = self.rng.randint(len(shape))
        dim = shape[axis]
        index_rank = int(self.rng.choice([0, 1, 1, 2]))
        index_shape = [int(self.rng.choice([1, 2, 3, 5])) for _ in range(index_rank)]
        indices = self.rng.randint(-dim, dim, index_shape)
        out = list(shape[:axis]) + index_shape + list(shape[axis + 1:])
        if not out or size(out) > MAX_ELEMENTS or size(out) < 2:
            return None
        return self.add_node("Gather", [x, self.int_constant(indices)], out,
                             axis=axis - len(shape) * (self.rng.rand() < 0.3))

    def reduce(self, x):
        op = REDUCE[self.rng.randint(len(REDUCE))]
        shape = self.shapes[x]
        if not shape:
            return None
        count = self.rng.randint(1, len(shape) + 1)
        axes = sorted(int(a) for a in self.rng.choice(len(shape), count, replace=False))
        keepdims = int(self.rng.rand() < 0.5)
        out = [1 if a in axes else d for a, d in enumerate(shape)] if keepdims else \
            [d for a, d in enumerate(shape) if a not in axes]
        if size(out) < 2 and self.rng.rand() < 0.7:
            return None
        axes = [a - len(shape) if self.rng.rand() < 0.3 else a for a in axes]
        if op == "ReduceSum":  # axes is an input from opset 13 (the others from 18)
            return self.add_node(op, [x, self.int_constant(axes)], out, keepdims=keepdims)
        return self.add_node(op, [x], out, axes=axes, keepdims=keepdims)

    def softmax(self, x):
        shape = self.shapes[x]
        if not shape:
            return None
        axis = -1 if self.rng.rand() < 0.6 else self.rng.randint(-len(shape), len(shape))
        op = "Softmax" if self.rng.rand() < 0.8 else "LogSoftmax"
        return self.add_node(op, [x], shape, axis=axis)

    def layernorm(self, x):
        shape = self.shapes[x]
        if not shape:
            return None
        axis = -1 if self.rng.rand() < 0.7 else -self.rng.randint(1, len(shape) + 1)
        normalized = list(shape[axis:])
        scale = self.float_constant(normalized, 0.5, 1.5)
        operands = [x, scale]
        if self.rng.rand() < 0.7:
            operands.append(self.float_constant(normalized))
        return self.add_node("LayerNormalization", operands, shape, axis=axis,
                             epsilon=1e-5)

    def matmul(self, x):
        shape = self.shapes[x]
        if len(shape) < 2:
            return None
        k = shape[-1]
        n = int(self.rng.choice([1, 3, 8, 16, 17, 32, 64]))
        choice = self.rng.rand()
        if choice < 0.5:                      # a weight: [K, N]
            other = self.float_constant([k, n], -0.5, 0.5)
        elif choice < 0.8:                    # a batched activation (broadcast batch)
            batch = list(shape[:-2])
            if batch and self.rng.rand() < 0.5:
                batch = [1 if self.rng.rand() < 0.5 else d for d in batch]
            other = self.new_input(batch + [k, n])
        else:                                 # x times the transpose of [.., N, K]
            batch = list(shape[:-2])
            source = self.new_input(batch + [n, k])
            perm = list(range(len(batch))) + [len(batch) + 1, len(batch)]
            other = self.add_node("Transpose", [source], batch + [k, n], perm=perm)
        out = list(broadcast_shape(shape[:-2], self.shapes[other][:-2])) + [shape[-2], n]
        if size(out) > MAX_ELEMENTS:
            return None
        return self.add_node("MatMul", [x, other], out)

    OPS = [("unary", 3), ("silu", 1), ("binary", 4), ("transpose", 2), ("reshape", 2),
           ("slice", 2), ("concat", 2), ("gather", 1), ("reduce", 2), ("softmax", 1),
           ("layernorm", 1), ("matmul", 2)]

    def build(self):
        self.new_input(self.random_shape())
        node_count = self.rng.randint(2, 11)
        names = [name for name, _ in self.OPS]
        weights = np.array([w for _, w in self.OPS], dtype=np.float64)
        attempts = 0
        while len(self.computed) < node_count and attempts < 100:
            attempts += 1
            op = names[self.rng.choice(len(names), p=weights / weights.sum())]
            try:
                getattr(self, op)(self.pick_value())
            except Unsupported:
                pass
        # Leaves made for a node that then did not fit go again.
        self.inputs = [i for i in self.inputs if self.users[i.name] > 0]
        self.input_shapes = {n: s for n, s in self.input_shapes.items() if self.users[n] > 0}
        self.initializers = [t for t in self.initializers
                             if t.name not in self.constants or self.users[t.name] > 0]
        leaves = [v for v in self.computed if self.users[v] == 0]
        extra = [v for v in self.computed if self.users[v] > 0 and self.rng.rand() < 0.15]
        self.outputs = [helper.make_tensor_value_info(v, DTYPES[self.dtype], self.shapes[v])
                        for v in self.computed if v in leaves or v in extra]
        return self

    def model(self):
        return make_model([self])

    def describe(self):
        ops = [node.op_type for node in self.nodes]
        return f"seed {self.seed} ({self.dtype}): {len(ops)} nodes: {' '.join(ops)}"


class Unsupported(Exception):
    """An op whose ONNX schema (at OPSET) does not take the graph's type."""


@functools.lru_cache(maxsize=None)
def supports(op, dtype):
    schema = onnx.defs.get_schema(op, OPSET)
    name = {"f32": "tensor(float)", "f16": "tensor(float16)", "bf16": "tensor(bfloat16)"}[dtype]
    first = schema.inputs[0].type_str
    for constraint in schema.type_constraints:
        if constraint.type_param_str == first:
            return name in constraint.allowed_type_strs
    return True


def factor(dim):
    """The smallest factor of |dim| above 1 that leaves a quotient above 1."""
    for f in range(2, dim):
        if dim % f == 0 and dim // f > 1:
            return f
    return None


def broadcast_shape(a, b):
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return tuple(out)


def graph_dtype(seed):
    """The element type of graph |seed|: half float32, a quarter each f16/bf16."""
    return ["f32", "f32", "f16", "bf16"][np.random.RandomState(seed ^ 0x5EED).randint(4)]


def generate(seed):
    return Graph(seed, graph_dtype(seed)).build()


def make_model(graphs):
    """One ONNX model holding the independent |graphs| side by side."""
    nodes, inputs, outputs, initializers = [], [], [], []
    for graph in graphs:
        nodes += graph.nodes
        inputs += graph.inputs
        outputs += graph.outputs
        initializers += graph.initializers
    body = helper.make_graph(nodes, "random_graphs", inputs, outputs, initializers)
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln-random-graphs")
    model.ir_version = 8
    return model


def round_to(values, grid):
    """float32 |values| rounded to the nearest value of |grid| ("f16",
    "bf16"; "f32" or None: unchanged), still as float32."""
    if grid == "f16":
        return values.astype(np.float16).astype(np.float32)
    if grid == "bf16":
        return (bfloat16_bits(values).astype(np.uint32) << 16).view(np.float32)
    return values


def random_inputs(graph, seed=None, grid=None):
    """Inputs in [-2, 2), never exactly 0, as (name, float32 values) pairs;
    on |grid| (round_to) when given. A float32 graph compiled at fp16 or
    bf16 takes its inputs at that precision: inputs already on its grid keep
    the rounding of the inputs out of the comparison with the float32
    evaluator, where an ill-conditioned op would magnify it (a LayerNorm of
    two nearly equal values: seed 232, 84 elements beyond the fp16 tolerance
    from the rounding alone)."""
    rng = np.random.RandomState((graph.seed if seed is None else seed) + 1_000_003)
    result = []
    for name, shape in graph.input_shapes.items():
        values = round_to(rng.uniform(-2, 2, shape).astype(np.float32), grid)
        values[values == 0] = 0.5
        result.append((name, values))
    return result


def write_inputs(graphs, folder, grid=None):
    """input_K.pb for every input of |graphs|, in model order (|grid|: see
    random_inputs)."""
    os.makedirs(folder, exist_ok=True)
    feeds = {}
    index = 0
    for graph in graphs:
        for name, values in random_inputs(graph, grid=grid):
            tensor = make_tensor(name, graph.dtype, values)
            with open(os.path.join(folder, f"input_{index}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())
            feeds[name] = values
            index += 1
    return feeds
