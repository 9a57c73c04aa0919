target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %2 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %3 = fptosi float %1 to i32
  %4 = fptosi float %2 to i32
  %5 = shl nsw i32 %4, 1
  %6 = add nsw i32 %5, %3
  %7 = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 0, i1 false, i1 false)
  %8 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %7, %dx.types.ResourceProperties { i32 12, i32 4 })
  %9 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %8, i32 %6, i32 0, i8 1, i32 4)
  %10 = extractvalue %dx.types.ResRet.f32 %9, 0
  %11 = call i1 @dx.op.isHelperLane.i1(i32 221)
  br i1 %11, label %14, label %12

12:                                               ; preds = %0
  %13 = call float @dx.op.unary.f32(i32 26, float %10)
  br label %14

14:                                               ; preds = %12, %0
  %15 = phi float [ %13, %12 ], [ 8.000000e+00, %0 ]
  %16 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %15, i32 0)
  %17 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %15, i32 1)
  %18 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %15, i32 2)
  %19 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %15, i32 3)
  %20 = call float @dx.op.dot4.f32(i32 56, float %16, float %17, float %18, float %19, float 1.000000e+00, float 1.000000e+01, float 1.000000e+02, float 1.000000e+03)
  %21 = call float @dx.op.unary.f32(i32 22, float %10)
  %22 = fcmp fast olt float %21, 5.000000e-01
  br i1 %22, label %23, label %24

23:                                               ; preds = %14
  call void @dx.op.discard(i32 82, i1 true)
  br label %24

24:                                               ; preds = %23, %14
  %25 = call i1 @dx.op.isHelperLane.i1(i32 221)
  br i1 %25, label %28, label %26

26:                                               ; preds = %24
  %27 = call float @dx.op.unary.f32(i32 26, float %10)
  br label %28

28:                                               ; preds = %26, %24
  %29 = phi float [ %27, %26 ], [ 8.000000e+00, %24 ]
  %30 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %29, i32 0)
  %31 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %29, i32 1)
  %32 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %29, i32 2)
  %33 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %29, i32 3)
  %34 = call float @dx.op.dot4.f32(i32 56, float %30, float %31, float %32, float %33, float 1.000000e+00, float 1.000000e+01, float 1.000000e+02, float 1.000000e+03)
  %35 = call %dx.types.Handle @dx.op.createHandleFromHeap(i32 218, i32 1, i1 false, i1 false)
  %36 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %35, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %37 = call i32 @dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle %36, i32 0, i32 %6, i32 0, i32 undef, i32 101)
  %38 = icmp eq i32 %6, 3
  %39 = icmp ugt i32 %37, 1000
  %40 = or i1 %38, %39
  br i1 %40, label %41, label %42

41:                                               ; preds = %28
  call void @dx.op.discard(i32 82, i1 true)
  br label %42

42:                                               ; preds = %41, %28
  %43 = call i1 @dx.op.isHelperLane.i1(i32 221)
  br i1 %43, label %46, label %44

44:                                               ; preds = %42
  %45 = call float @dx.op.unary.f32(i32 26, float %10)
  br label %46

46:                                               ; preds = %44, %42
  %47 = phi float [ %45, %44 ], [ 8.000000e+00, %42 ]
  %48 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %47, i32 0)
  %49 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %47, i32 1)
  %50 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %47, i32 2)
  %51 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %47, i32 3)
  %52 = call float @dx.op.dot4.f32(i32 56, float %48, float %49, float %50, float %51, float 1.000000e+00, float 1.000000e+01, float 1.000000e+02, float 1.000000e+03)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %20)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %34)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %52)
  ret void
}

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare void @dx.op.discard(i32, i1) #1

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromHeap(i32, i32, i1, i1) #0

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32) #2

; Function Attrs: nounwind readnone
declare float @dx.op.unary.f32(i32, float) #0

; Function Attrs: nounwind
declare i32 @dx.op.atomicBinOp.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32) #1

; Function Attrs: nounwind readonly
declare i1 @dx.op.isHelperLane.i1(i32) #2

; Function Attrs: nounwind
declare float @dx.op.quadReadLaneAt.f32(i32, float, i32) #1

; Function Attrs: nounwind readnone
declare float @dx.op.dot4.f32(i32, float, float, float, float, float, float, float, float) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.viewIdState = !{!4}
!dx.entryPoints = !{!5}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 6}
!2 = !{i32 1, i32 7}
!3 = !{!"ps", i32 6, i32 6}
!4 = !{[6 x i32] [i32 4, i32 4, i32 14, i32 14, i32 0, i32 0]}
!5 = !{void ()* @main, !"main", !6, null, !14}
!6 = !{!7, !11, null}
!7 = !{!8}
!8 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, !10}
!9 = !{i32 0}
!10 = !{i32 3, i32 3}
!11 = !{!12}
!12 = !{i32 0, !"SV_Target", i8 9, i8 16, !9, i8 0, i32 1, i8 4, i32 0, i8 0, !13}
!13 = !{i32 3, i32 15}
!14 = !{i32 0, i64 1074266112}
