target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%"class.RWStructuredBuffer<unsigned int>" = type { i32 }

@dx.ishelper = internal global i32 0

define void @main() {
  %1 = call i32 @dx.op.coverage.i32(i32 91)
  %2 = icmp eq i32 0, %1
  %3 = zext i1 %2 to i32
  store i32 %3, i32* @dx.ishelper, align 4
  %4 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 1, i1 false)
  %5 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %6 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %7 = call i32 @dx.op.coverage.i32(i32 91)
  %8 = call i32 @dx.op.sampleIndex.i32(i32 90)
  %9 = load i32, i32* @dx.ishelper, align 4
  %10 = trunc i32 %9 to i1
  %11 = uitofp i1 %10 to float
  %12 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %11, i32 0)
  %13 = fcmp fast une float %12, 0.000000e+00
  %14 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %11, i32 1)
  %15 = fcmp fast une float %14, 0.000000e+00
  %16 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %11, i32 2)
  %17 = fcmp fast une float %16, 0.000000e+00
  %18 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %11, i32 3)
  %19 = fcmp fast une float %18, 0.000000e+00
  %20 = zext i1 %13 to i32
  %21 = shl nuw nsw i32 %20, 28
  %22 = or i32 %21, %7
  %23 = zext i1 %15 to i32
  %24 = shl nuw nsw i32 %23, 29
  %25 = or i32 %22, %24
  %26 = zext i1 %17 to i32
  %27 = shl nuw nsw i32 %26, 30
  %28 = or i32 %25, %27
  %29 = zext i1 %19 to i32
  %30 = shl nuw i32 %29, 31
  %31 = or i32 %28, %30
  %32 = shl i32 %8, 2
  %33 = fptosi float %6 to i32
  %34 = shl i32 %33, 1
  %35 = fptosi float %5 to i32
  %36 = add i32 %34, %35
  %37 = add i32 %36, %32
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %4, i32 %37, i32 0, i32 %31, i32 undef, i32 undef, i32 undef, i8 1)
  %38 = uitofp i32 %8 to float
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %38)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.sampleIndex.i32(i32) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.coverage.i32(i32) #0

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare float @dx.op.quadReadLaneAt.f32(i32, float, i32) #1

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #2

; Function Attrs: nounwind
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.viewIdState = !{!8}
!dx.entryPoints = !{!9}

!0 = !{!"dxcoob 1.7.2212.40 (e043f4a12)"}
!1 = !{i32 1, i32 0}
!2 = !{i32 1, i32 7}
!3 = !{!"ps", i32 6, i32 0}
!4 = !{null, !5, null, null}
!5 = !{!6}
!6 = !{i32 0, %"class.RWStructuredBuffer<unsigned int>"* undef, !"", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !7}
!7 = !{i32 1, i32 4}
!8 = !{[6 x i32] [i32 4, i32 1, i32 0, i32 0, i32 0, i32 0]}
!9 = !{void ()* @main, !"main", !10, !4, !19}
!10 = !{!11, !16, null}
!11 = !{!12, !15}
!12 = !{i32 0, !"SV_Position", i8 9, i8 3, !13, i8 4, i32 1, i8 4, i32 0, i8 0, !14}
!13 = !{i32 0}
!14 = !{i32 3, i32 3}
!15 = !{i32 1, !"SV_SampleIndex", i8 5, i8 12, !13, i8 1, i32 1, i8 1, i32 -1, i8 -1, null}
!16 = !{!17}
!17 = !{i32 0, !"SV_Target", i8 9, i8 16, !13, i8 0, i32 1, i8 1, i32 0, i8 0, !18}
!18 = !{i32 3, i32 1}
!19 = !{i32 0, i64 524304}
