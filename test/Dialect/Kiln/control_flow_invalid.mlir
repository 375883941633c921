// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier errors of kiln.loop.

func.func @trip_count_elements(%m: tensor<2xi64>, %y: tensor<f32>) {
  // expected-error @+1 {{trip_count must hold one element, got 'tensor<2xi64>'}}
  %0 = kiln.loop trip_count(%m : tensor<2xi64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    kiln.yield %c, %v : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return
}

// -----

func.func @arguments(%y: tensor<f32>) {
  // expected-error @+1 {{body has 2 arguments, expected 3 (iteration number, condition, carried values)}}
  %0 = kiln.loop carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>):
    kiln.yield %c, %y : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return
}

// -----

func.func @carried_shape(%y: tensor<2xf32>, %z: tensor<3xf32>) {
  // expected-error @+1 {{carried value 0 changes type: 'tensor<2xf32>' in, 'tensor<3xf32>' yielded, 'tensor<2xf32>' result}}
  %0 = kiln.loop carried(%y : tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    kiln.yield %c, %z : tensor<i1>, tensor<3xf32>
  } : tensor<2xf32>
  return
}

// -----

func.func @scan_rank(%y: tensor<2xf32>) {
  // expected-error @+1 {{scan output 0 of type 'tensor<2xf32>' does not stack the yielded 'tensor<2xf32>'}}
  %0:2 = kiln.loop carried(%y : tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
    kiln.yield %c, %v, %v : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  } : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @condition_type(%y: tensor<f32>) {
  // expected-error @+1 {{the body's condition must hold one i1, got 'tensor<f32>'}}
  %0 = kiln.loop carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    kiln.yield %v, %v : tensor<f32>, tensor<f32>
  } : tensor<f32>
  return
}

// -----

func.func @if_condition(%c: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{condition must hold one element, got 'tensor<2xi1>'}}
  %0 = kiln.if %c : tensor<2xi1> then {
    kiln.yield %x : tensor<4xf32>
  } else {
    kiln.yield %x : tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

func.func @if_yield_count(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{the else branch yields 2 values, expected 1}}
  %0 = kiln.if %c : tensor<i1> then {
    kiln.yield %x : tensor<4xf32>
  } else {
    kiln.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

func.func @if_yield_type(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expected-error @+1 {{the then branch yields 'tensor<5xf32>' for result 0 of type 'tensor<4xf32>'}}
  %0 = kiln.if %c : tensor<i1> then {
    kiln.yield %y : tensor<5xf32>
  } else {
    kiln.yield %x : tensor<4xf32>
  } : tensor<4xf32>
  return
}
