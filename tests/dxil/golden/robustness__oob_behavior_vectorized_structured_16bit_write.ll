target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%"class.RWStructuredBuffer<vector<uint16_t, 1> >" = type { <1 x i16> }
%"class.RWStructuredBuffer<vector<uint16_t, 2> >" = type { <2 x i16> }
%"class.RWStructuredBuffer<vector<uint16_t, 3> >" = type { <3 x i16> }
%"class.RWStructuredBuffer<vector<uint16_t, 4> >" = type { <4 x i16> }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 6, i32 6, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 5, i32 5, i1 false)
  %3 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 4, i32 4, i1 false)
  %4 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 3, i32 3, i1 false)
  %5 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 2, i32 2, i1 false)
  %6 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 1, i32 1, i1 false)
  %7 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %8 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %9 = trunc i32 %8 to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %7, i32 %8, i32 0, i16 %9, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  %10 = shl i32 %8, 1
  %11 = or i32 %10, 1
  %12 = trunc i32 %10 to i16
  %13 = trunc i32 %11 to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %6, i32 %8, i32 0, i16 %12, i16 %13, i16 undef, i16 undef, i8 3, i32 2)
  %14 = mul i32 %8, 3
  %15 = add i32 %14, 1
  %16 = add i32 %14, 2
  %17 = trunc i32 %14 to i16
  %18 = trunc i32 %15 to i16
  %19 = trunc i32 %16 to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %5, i32 %8, i32 0, i16 %17, i16 %18, i16 %19, i16 undef, i8 7, i32 2)
  %20 = shl i32 %8, 2
  %21 = or i32 %20, 1
  %22 = or i32 %20, 2
  %23 = or i32 %20, 3
  %24 = trunc i32 %20 to i16
  %25 = trunc i32 %21 to i16
  %26 = trunc i32 %22 to i16
  %27 = trunc i32 %23 to i16
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %4, i32 %8, i32 0, i16 %24, i16 %25, i16 %26, i16 %27, i8 15, i32 2)
  %28 = lshr i32 %8, 1
  %29 = and i32 %10, 2
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %3, i32 %28, i32 %29, i16 %9, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  %30 = udiv i32 %8, 3
  %31 = urem i32 %8, 3
  %32 = shl nuw nsw i32 %31, 1
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %2, i32 %30, i32 %32, i16 %9, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  %33 = lshr i32 %8, 2
  %34 = and i32 %10, 6
  call void @dx.op.rawBufferStore.i16(i32 140, %dx.types.Handle %1, i32 %33, i32 %34, i16 %9, i16 undef, i16 undef, i16 undef, i8 1, i32 2)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #0

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.i16(i32, %dx.types.Handle, i32, i32, i16, i16, i16, i16, i8, i32) #1

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #2

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.entryPoints = !{!16}

!0 = !{!"dxcoob 1.7.2212.40 (e043f4a12)"}
!1 = !{i32 1, i32 2}
!2 = !{i32 1, i32 7}
!3 = !{!"cs", i32 6, i32 2}
!4 = !{null, !5, null, null}
!5 = !{!6, !7, !9, !11, !13, !14, !15}
!6 = !{i32 0, %"class.RWStructuredBuffer<vector<uint16_t, 1> >"* undef, !"", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !1}
!7 = !{i32 1, %"class.RWStructuredBuffer<vector<uint16_t, 2> >"* undef, !"", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !8}
!8 = !{i32 1, i32 4}
!9 = !{i32 2, %"class.RWStructuredBuffer<vector<uint16_t, 3> >"* undef, !"", i32 0, i32 2, i32 1, i32 12, i1 false, i1 false, i1 false, !10}
!10 = !{i32 1, i32 6}
!11 = !{i32 3, %"class.RWStructuredBuffer<vector<uint16_t, 4> >"* undef, !"", i32 0, i32 3, i32 1, i32 12, i1 false, i1 false, i1 false, !12}
!12 = !{i32 1, i32 8}
!13 = !{i32 4, %"class.RWStructuredBuffer<vector<uint16_t, 2> >"* undef, !"", i32 0, i32 4, i32 1, i32 12, i1 false, i1 false, i1 false, !8}
!14 = !{i32 5, %"class.RWStructuredBuffer<vector<uint16_t, 3> >"* undef, !"", i32 0, i32 5, i32 1, i32 12, i1 false, i1 false, i1 false, !10}
!15 = !{i32 6, %"class.RWStructuredBuffer<vector<uint16_t, 4> >"* undef, !"", i32 0, i32 6, i32 1, i32 12, i1 false, i1 false, i1 false, !12}
!16 = !{void ()* @main, !"main", null, !4, !17}
!17 = !{i32 0, i64 8388656, i32 4, !18}
!18 = !{i32 64, i32 1, i32 1}
